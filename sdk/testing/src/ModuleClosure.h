// Which modules a Harness enables: the ones under test and, transitively,
// the modules their info() declares as dependencies (never the optional
// ones: those only when listed).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace rapport::testing {

// `wanted` followed by the missing dependencies, in the order the loader
// asked for them. Throws the loader's ModuleLoadError (a std::runtime_error)
// with its one-line reason for anything else it refuses (a module not found,
// another ABI, a cycle).
std::vector<std::string> withDependencies(std::vector<std::string> wanted,
                                          const std::vector<std::filesystem::path>& dirs);

}  // namespace rapport::testing
