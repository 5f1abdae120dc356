#include "loader/SdkLibraryCheck.h"

#include <dlfcn.h>

#include <cstring>

#include "loader/ModuleLoadError.h"
#include "loader/StampCheck.h"

namespace rapport::host {

void checkSdkLibrary(const rapport_module_stamp& loaded, const std::string& file,
                     const rapport_module_stamp& host) {
  const std::string prefix = "SDK library " + file + ": ";
  if (loaded.magic != host.magic || loaded.format != host.format || loaded.size != sizeof loaded ||
      !std::memchr(loaded.compiler, '\0', sizeof loaded.compiler) ||
      !std::memchr(loaded.cxx_library, '\0', sizeof loaded.cxx_library)) {
    throw ModuleLoadError(prefix + "not a Rapport SDK (bad identity)");
  }
  const bool usable = loaded.abi_major == host.abi_major && loaded.abi_minor >= host.abi_minor &&
                      sameBuild(loaded, host);
  if (!usable) {
    throw ModuleLoadError(prefix + "SDK ABI mismatch: expected " + describeBuild(host) +
                          ", actual " + describeBuild(loaded));
  }
}

void checkLoadedSdkLibrary() {
  const rapport_module_stamp* identity = rapport_sdk_identity();
  // The identity is static data of the library: its address names the file.
  Dl_info info{};
  const std::string file = ::dladdr(identity, &info) != 0 && info.dli_fname != nullptr
                               ? info.dli_fname
                               : "librapport_sdk.so (path unknown)";
  checkSdkLibrary(*identity, file, hostStamp());
}

}  // namespace rapport::host
