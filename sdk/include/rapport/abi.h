// The ABI stamp: plain data a module exports under a fixed C name, read by the
// host before any C++ object crosses the boundary. A module built against
// another SDK ABI, another compiler major version or another libstdc++ string
// ABI is refused at start-up with a message naming the file, the expected and
// the actual values.
//
// A module's .cpp ends with exactly one:
//   RAPPORT_MODULE(ContactsModule, "contacts", "1.0.0")
#pragma once

#include <cstdint>

#include "rapport/module.h"

// Bump MAJOR for any incompatible change of an SDK header (layout of a type,
// a virtual function added or reordered). MINOR for compatible additions:
// a module built against minor N loads in a host with minor >= N.
//   1.1: rapport/query.h (lists, search, tags, request rules of record modules).
//   2.0: query.h's WhereClause (set memberships) and TagTable (record and
//        counts tables) changed layout.
#define RAPPORT_SDK_ABI_MAJOR 2
#define RAPPORT_SDK_ABI_MINOR 0
#define RAPPORT_MODULE_MAGIC 0x52505452u /* "RPTR" */

#if defined(__GNUC__) && !defined(__clang__)
#define RAPPORT_COMPILER_MAJOR __GNUC__
#else
#define RAPPORT_COMPILER_MAJOR 0
#endif
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define RAPPORT_CXX11_ABI _GLIBCXX_USE_CXX11_ABI
#else
#define RAPPORT_CXX11_ABI 0
#endif

extern "C" {
struct rapport_module_stamp {
  std::uint32_t magic;
  std::uint32_t abi_major;
  std::uint32_t abi_minor;
  std::uint32_t compiler_major;
  std::uint32_t cxx11_abi;
  const char* name;     // must equal ModuleInfo::name
  const char* version;  // module version, for logs
};
// The module's factory; the host owns the returned object.
typedef rapport::Module* (*rapport_module_create_fn)();
}

#define RAPPORT_MODULE_STAMP_SYMBOL "rapport_module_stamp"
#define RAPPORT_MODULE_CREATE_SYMBOL "rapport_module_create"

#define RAPPORT_MODULE(ModuleClass, NAME, VERSION)                                             \
  extern "C" __attribute__((visibility("default")))                                            \
  const rapport_module_stamp rapport_module_stamp = {RAPPORT_MODULE_MAGIC,                     \
                                                     RAPPORT_SDK_ABI_MAJOR,                    \
                                                     RAPPORT_SDK_ABI_MINOR,                    \
                                                     RAPPORT_COMPILER_MAJOR,                   \
                                                     RAPPORT_CXX11_ABI,                        \
                                                     NAME,                                     \
                                                     VERSION};                                 \
  extern "C" __attribute__((visibility("default"))) rapport::Module* rapport_module_create() { \
    return new ModuleClass();                                                                  \
  }
