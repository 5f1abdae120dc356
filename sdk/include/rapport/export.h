// Symbol visibility for the SDK shared library.
//
// Everything a module may call is marked RAPPORT_SDK_API. Types whose
// type_info must compare equal across the host and modules (exceptions,
// interfaces used with dynamic_cast) are marked RAPPORT_VISIBLE as well, so
// other toolchains that compare type_info by address still work.
#pragma once

#if defined(RAPPORT_SDK_BUILDING)
#define RAPPORT_SDK_API __attribute__((visibility("default")))
#else
#define RAPPORT_SDK_API __attribute__((visibility("default")))
#endif
#define RAPPORT_VISIBLE __attribute__((visibility("default")))
