// The ABI stamp check: what the loader decides from a module file's stamp
// (rapport/abi.h), read from the file's ".rapport_stamp" section before the
// library is opened (ModuleFile.h), so that a refused module runs no code.
//
// A module is accepted when its stamp has the Rapport magic and format and
//   - the same SDK ABI major as the host, and a minor not newer than the
//     host's (minor versions only add);
//   - exactly the same build: compiler family and major version, C++ library,
//     library ABI and container mode (debug or release).
// Otherwise ModuleLoadError (one line):
//   "module file <file>: not a Rapport module (bad stamp magic)"
//   "module file <file>: not a Rapport module (damaged stamp: <why>)"
//   "module file <file>: not a Rapport module (stamp has no name)"
//   "module file <file>: SDK ABI mismatch: expected 5.0 (stamp format 1),
//    actual 6.0 (stamp format 2)"
//   "module file <file>: SDK ABI mismatch: expected 5.0 (gcc 12, libstdc++
//    cxx11 abi 1, release containers), actual 4.0 (gcc 12, libstdc++ cxx11
//    abi 1, release containers)"
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "rapport/abi.h"

namespace rapport::host {

// A stamp's values, copied out of the stamp.
struct ModuleStamp {
  std::uint32_t abiMajor = 0;
  std::uint32_t abiMinor = 0;
  std::string compiler;  // "gcc", "clang", "unknown"
  std::uint32_t compilerMajor = 0;
  std::string cxxLibrary;  // "libstdc++", "libc++", "unknown"
  std::uint32_t cxxLibraryAbi = 0;
  bool debugContainers = false;
  std::string name;
  std::string version;
};

// The stamp of this host's own build (name and version empty): what it
// expects of modules and of the SDK library.
rapport_module_stamp hostStamp();

// "5.0 (gcc 12, libstdc++ cxx11 abi 1, release containers)". The stamp's
// strings must be terminated (checkStamp checks).
std::string describeBuild(const rapport_module_stamp& stamp);

// True when compiler family and major, C++ library, library ABI and
// container mode are the same: what must match exactly on both sides.
bool sameBuild(const rapport_module_stamp& a, const rapport_module_stamp& b);

// Checks the raw bytes of a stamp section read from `file` against `host`
// and returns its values; throws ModuleLoadError (formats above).
ModuleStamp checkStamp(std::span<const unsigned char> bytes, const std::string& file,
                       const rapport_module_stamp& host = hostStamp());

// The same check of a stamp already in memory (its magic, format and size
// fields included).
ModuleStamp checkStamp(const rapport_module_stamp& stamp, const std::string& file,
                       const rapport_module_stamp& host = hostStamp());

}  // namespace rapport::host
