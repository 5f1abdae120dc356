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

// The version rule. A module built against MAJOR.N loads in a host of the
// same MAJOR and a MINOR >= N; anything else is refused at start-up. The
// same numbers are the SDK library's version (librapport_sdk.so.MAJOR.MINOR.0,
// soname librapport_sdk.so.MAJOR) and the installed CMake package's
// (find_package(RapportSdk MAJOR.MINOR), same major only): sdk/CMakeLists.txt
// reads them from here.
//   MAJOR: any change a module built before would misread: the layout of a
//     type a module constructs, copies or reads by value (structs, classes
//     with data members, std::function signatures, enums), a function's or
//     virtual's signature, virtuals inserted or reordered anywhere, virtuals
//     added to a class a module implements (Module).
//   MINOR: compatible additions only: new free functions and headers, new
//     virtuals appended at the end of an interface the host implements and
//     modules only call (Host, Registry, Tx, Database, RecordDirectory).
// History:
//   1.1: rapport/query.h (lists, search, tags, request rules of record modules).
//   2.0: query.h's WhereClause (set memberships) and TagTable (record and
//        counts tables) changed layout.
//   3.0: records.h: RecordExists takes a RecordLock; RecordType (exists and
//        fetch) replaces the bare check in Registry::recordType; deletion
//        guards and augments (Registry::guardDeletion, Registry::augment);
//        RecordDirectory::lockForReference, fetch, augment.
//        validation.h: isValidUtf8. query.h: selectRecord, RowLock, listResponse.
//   4.0: jobs.h: JobContext is an interface (stopping(), wait(), worker()),
//        Job has concurrency, Registry::job returns a JobHandle (wake,
//        wakeOne).
//        events.h: Event carries module and requestId; the
//        EventCatalogue (Host::events). secrets.h: SecretBox (Host::secrets).
//        config.h: Config::getList and getIntBetween (inline, over the
//        virtual getters).
#define RAPPORT_SDK_ABI_MAJOR 4
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
