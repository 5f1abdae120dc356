// The SDK library check: the librapport_sdk.so the dynamic linker actually
// loaded must be one this host can use. The host was compiled against abi.h
// (hostStamp()); the library reports how it was compiled through
// rapport_sdk_identity(). Run at start-up, before any module is loaded.
//
// Accepted: the same SDK ABI major, a minor at least the host's (a newer
// minor only adds), and exactly the same build (compiler family and major,
// C++ library, library ABI, container mode: StampCheck.h's sameBuild).
// Otherwise ModuleLoadError, one line naming the loaded file and both values:
//   "SDK library /usr/lib/librapport_sdk.so.5: SDK ABI mismatch: expected 5.0
//    (gcc 12, libstdc++ cxx11 abi 1, release containers), actual 5.0 (gcc 12,
//    libstdc++ cxx11 abi 1, debug containers)"
//   "SDK library <file>: not a Rapport SDK (bad identity)"   (magic or format)
#pragma once

#include <string>

#include "rapport/abi.h"

namespace rapport::host {

// Checks `loaded`, the identity of the SDK library at `file`, against `host`.
void checkSdkLibrary(const rapport_module_stamp& loaded, const std::string& file,
                     const rapport_module_stamp& host);

// Checks the librapport_sdk.so this process loaded (found with dladdr)
// against this host's build. Throws ModuleLoadError.
void checkLoadedSdkLibrary();

}  // namespace rapport::host
