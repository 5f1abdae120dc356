#include "loader/StampCheck.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <sstream>

#include "loader/ModuleLoadError.h"

namespace rapport::host {
namespace {

// The fields every stamp format keeps: magic, format, size, abi major, minor.
constexpr std::size_t kStablePrefix = 5 * sizeof(std::uint32_t);

template <std::size_t N>
bool terminated(const char (&text)[N]) {
  return std::memchr(text, '\0', N) != nullptr;
}

std::string version(const rapport_module_stamp& s) {
  return std::to_string(s.abi_major) + '.' + std::to_string(s.abi_minor);
}

[[noreturn]] void notAModule(const std::string& file, const std::string& why) {
  throw ModuleLoadError("module file " + file + ": not a Rapport module (" + why + ")");
}

}  // namespace

rapport_module_stamp hostStamp() {
  return RAPPORT_STAMP_INITIALIZER("", "");
}

std::string describeBuild(const rapport_module_stamp& s) {
  const std::string library = s.cxx_library;
  std::ostringstream out;
  out << version(s) << " (" << s.compiler << ' ' << s.compiler_major << ", " << library
      << (library == "libstdc++" ? " cxx11 abi " : " abi ") << s.cxx_library_abi << ", "
      << (s.debug_containers ? "debug" : "release") << " containers)";
  return out.str();
}

bool sameBuild(const rapport_module_stamp& a, const rapport_module_stamp& b) {
  return std::strcmp(a.compiler, b.compiler) == 0 && a.compiler_major == b.compiler_major &&
         std::strcmp(a.cxx_library, b.cxx_library) == 0 && a.cxx_library_abi == b.cxx_library_abi &&
         a.debug_containers == b.debug_containers;
}

ModuleStamp checkStamp(std::span<const unsigned char> bytes, const std::string& file,
                       const rapport_module_stamp& host) {
  rapport_module_stamp stamp{};
  if (bytes.size() < sizeof stamp.magic) notAModule(file, "bad stamp magic");
  std::memcpy(&stamp, bytes.data(), std::min(bytes.size(), sizeof stamp));
  if (stamp.magic != host.magic) notAModule(file, "bad stamp magic");
  if (bytes.size() < kStablePrefix) {
    notAModule(file, "damaged stamp: " + std::to_string(bytes.size()) + " bytes");
  }
  if (stamp.format != host.format) {
    throw ModuleLoadError("module file " + file + ": SDK ABI mismatch: expected " + version(host) +
                          " (stamp format " + std::to_string(host.format) + "), actual " +
                          version(stamp) + " (stamp format " + std::to_string(stamp.format) + ")");
  }
  if (bytes.size() != sizeof stamp) {
    notAModule(file, "damaged stamp: " + std::to_string(bytes.size()) + " bytes, format " +
                         std::to_string(host.format) + " has " + std::to_string(sizeof stamp));
  }
  return checkStamp(stamp, file, host);
}

ModuleStamp checkStamp(const rapport_module_stamp& stamp, const std::string& file,
                       const rapport_module_stamp& host) {
  if (stamp.magic != host.magic) notAModule(file, "bad stamp magic");
  if (stamp.format != host.format || stamp.size != sizeof stamp) {
    notAModule(file, "damaged stamp: format " + std::to_string(stamp.format) + ", size " +
                         std::to_string(stamp.size));
  }
  if (!terminated(stamp.compiler) || !terminated(stamp.cxx_library) || !terminated(stamp.name) ||
      !terminated(stamp.version)) {
    notAModule(file, "damaged stamp: unterminated text");
  }
  const bool compatible = stamp.abi_major == host.abi_major && stamp.abi_minor <= host.abi_minor &&
                          sameBuild(stamp, host);
  if (!compatible) {
    throw ModuleLoadError("module file " + file + ": SDK ABI mismatch: expected " +
                          describeBuild(host) + ", actual " + describeBuild(stamp));
  }
  if (stamp.name[0] == '\0') notAModule(file, "stamp has no name");
  ModuleStamp copy;
  copy.abiMajor = stamp.abi_major;
  copy.abiMinor = stamp.abi_minor;
  copy.compiler = stamp.compiler;
  copy.compilerMajor = stamp.compiler_major;
  copy.cxxLibrary = stamp.cxx_library;
  copy.cxxLibraryAbi = stamp.cxx_library_abi;
  copy.debugContainers = stamp.debug_containers != 0;
  copy.name = stamp.name;
  copy.version = stamp.version;
  return copy;
}

}  // namespace rapport::host
