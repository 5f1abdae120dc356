// The SDK library's own stamp: what this librapport_sdk.so was compiled with.
// The host compares it with what it was compiled against (host/loader/
// SdkLibraryCheck.h) before it loads any module.
#include "rapport/abi.h"

#define RAPPORT_STRINGIFY_(x) #x
#define RAPPORT_STRINGIFY(x) RAPPORT_STRINGIFY_(x)

extern "C" const rapport_module_stamp* rapport_sdk_identity(void) {
  static const rapport_module_stamp identity = RAPPORT_STAMP_INITIALIZER(
      "rapport_sdk",
      RAPPORT_STRINGIFY(RAPPORT_SDK_ABI_MAJOR) "." RAPPORT_STRINGIFY(RAPPORT_SDK_ABI_MINOR) ".0");
  return &identity;
}
