// The ABI stamp check: the first thing the loader reads from a module file,
// plain data exported as `rapport_module_stamp` (rapport/abi.h), checked
// before any code of the module runs.
//
// A module is accepted when its stamp has the Rapport magic and
//   - the same SDK ABI major as the host,
//   - an SDK ABI minor not newer than the host's (minor bumps only add),
//   - the same compiler major version (RAPPORT_COMPILER_MAJOR),
//   - the same libstdc++ string ABI (_GLIBCXX_USE_CXX11_ABI).
// Otherwise ModuleLoadError:
//   "module file <file>: not a Rapport module (bad stamp magic)"
//   "module file <file>: not a Rapport module (stamp has no name)"
//   "module file <file>: SDK ABI mismatch: expected 1.0 (gcc 12, cxx11 abi 1),
//    actual 99.0 (gcc 12, cxx11 abi 1)"                      (one line)
#pragma once

#include <cstdint>
#include <string>

#include "rapport/abi.h"

namespace rapport::host {

// The stamp's values, copied out of the module's memory.
struct ModuleStamp {
  std::uint32_t abiMajor = 0;
  std::uint32_t abiMinor = 0;
  std::uint32_t compilerMajor = 0;
  std::uint32_t cxx11Abi = 0;
  std::string name;
  std::string version;
};

// The stamp this host would accept exactly (its own build's values).
rapport_module_stamp hostStamp();

// Checks `stamp` read from `file` against `host` and returns a copy of it;
// throws ModuleLoadError (formats above).
ModuleStamp checkStamp(const rapport_module_stamp& stamp, const std::string& file,
                       const rapport_module_stamp& host = hostStamp());

}  // namespace rapport::host
