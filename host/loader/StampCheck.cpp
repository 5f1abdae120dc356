#include "loader/StampCheck.h"

#include <sstream>

#include "loader/ModuleLoadError.h"

namespace rapport::host {
namespace {

std::string describe(const rapport_module_stamp& s) {
  std::ostringstream out;
  out << s.abi_major << '.' << s.abi_minor << " (gcc " << s.compiler_major << ", cxx11 abi "
      << s.cxx11_abi << ')';
  return out.str();
}

bool compatible(const rapport_module_stamp& module, const rapport_module_stamp& host) {
  return module.abi_major == host.abi_major && module.abi_minor <= host.abi_minor &&
         module.compiler_major == host.compiler_major && module.cxx11_abi == host.cxx11_abi;
}

}  // namespace

rapport_module_stamp hostStamp() {
  return {RAPPORT_MODULE_MAGIC,
          RAPPORT_SDK_ABI_MAJOR,
          RAPPORT_SDK_ABI_MINOR,
          RAPPORT_COMPILER_MAJOR,
          RAPPORT_CXX11_ABI,
          "",
          ""};
}

ModuleStamp checkStamp(const rapport_module_stamp& stamp, const std::string& file,
                       const rapport_module_stamp& host) {
  const std::string prefix = "module file " + file + ": ";
  if (stamp.magic != host.magic) {
    throw ModuleLoadError(prefix + "not a Rapport module (bad stamp magic)");
  }
  if (!compatible(stamp, host)) {
    throw ModuleLoadError(prefix + "SDK ABI mismatch: expected " + describe(host) + ", actual " +
                          describe(stamp));
  }
  if (stamp.name == nullptr || *stamp.name == '\0') {
    throw ModuleLoadError(prefix + "not a Rapport module (stamp has no name)");
  }
  ModuleStamp copy;
  copy.abiMajor = stamp.abi_major;
  copy.abiMinor = stamp.abi_minor;
  copy.compilerMajor = stamp.compiler_major;
  copy.cxx11Abi = stamp.cxx11_abi;
  copy.name = stamp.name;
  copy.version = stamp.version ? stamp.version : "";
  return copy;
}

}  // namespace rapport::host
