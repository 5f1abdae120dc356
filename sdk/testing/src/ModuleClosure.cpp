#include "ModuleClosure.h"

#include "loader/ModuleLoader.h"

namespace rapport::testing {

std::vector<std::string> withDependencies(std::vector<std::string> wanted,
                                          const std::vector<std::filesystem::path>& dirs) {
  return host::ModuleLoader(dirs).withDependencies(wanted);
}

}  // namespace rapport::testing
