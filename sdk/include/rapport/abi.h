// The ABI stamp and the version rule.
//
// RAPPORT_MODULE writes the module's stamp: fixed-size plain data (numbers
// and char arrays, no pointers) placed in the ELF section ".rapport_stamp" of
// the module file. rapportd reads that section from the FILE, with its own
// small ELF reader, before it opens the library: a module whose stamp is
// refused is never dlopen'ed, so none of its code runs, not even its static
// initialisers. A module built against another SDK ABI, by another compiler
// family or major version, against another C++ library or library ABI, or
// with debug containers on one side only is refused at start-up with one line
// naming the file, the expected and the actual values:
//   module file m/rapport_x.so: SDK ABI mismatch: expected 5.0 (gcc 12,
//   libstdc++ cxx11 abi 1, release containers), actual 4.0 (gcc 12, ...)
// The host also checks, at start-up, that the librapport_sdk.so it loaded
// says the same about itself (rapport_sdk_identity below).
//
// A module's .cpp ends with exactly one:
//   RAPPORT_MODULE(ContactsModule, "contacts", "1.0.0")
// NAME: 1 to 63 characters (lowercase letters, digits, '_'); VERSION: at most
// 31 characters. Both must be string literals; longer ones fail to compile
// with a static_assert naming the limit.
#pragma once

#include <cstdint>
#include <version>  // defines the C++ library's identification macros

#include "rapport/export.h"
#include "rapport/module.h"

// The version rule. A module built against MAJOR.N loads in a host of the
// same MAJOR and a MINOR >= N; anything else is refused at start-up. The
// same numbers are the SDK library's version (librapport_sdk.so.MAJOR.MINOR.0,
// soname librapport_sdk.so.MAJOR) and the installed CMake package's
// (find_package(RapportSdk MAJOR.MINOR), same major only): sdk/CMakeLists.txt
// reads them from here. The host refuses an SDK library of another MAJOR or of
// an older MINOR than the one it was built against.
//   MINOR: compatible additions only, that a module built before can ignore:
//     - new free functions, new headers, new classes a module does not have
//       to use;
//     - new virtuals appended at the END of an interface the host implements
//       and modules only call: Host, Registry, Tx, Database, RecordDirectory
//       (and the other host-implemented interfaces: EventCatalogue,
//       JobContext, SecretBox, Config, Logger). Never in the middle, never
//       reordered.
//   MAJOR: any change a module built before would misread:
//     - the layout of anything a module constructs, copies or reads by value
//       (structs, classes with data members, std::function signatures, enums,
//       inline functions' behaviour), ModuleInfo included;
//     - a function's or a virtual's signature, a removed function;
//     - virtuals inserted, removed or reordered anywhere;
//     - any virtual of Module (the interface modules implement): added,
//       removed, changed;
//     - the stamp (rapport_module_stamp, its section, RAPPORT_STAMP_FORMAT).
// CI keeps a fingerprint of the public headers per version (sdk/abi/): a
// header change without a version change fails `sdk.abi_fingerprint`.
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
//   5.0: the SDK for third parties.
//        abi.h: the stamp is fixed-size data in the ELF section
//        ".rapport_stamp" (format 1: compiler family and major, C++ library
//        and its ABI, debug containers), read from the file before dlopen;
//        rapport_sdk_identity().
//        module.h: ModuleInfo has defaults for every member and
//        `configuration` (config.h ConfigKey); config.h: the one-argument
//        getters of declared keys.
//        query.h split into record_lookup.h, where.h, list.h, search.h,
//        tags.h and request_rules.h (query.h includes them); WhereClause is
//        opaque (one pointer). listing_tables.h: ListingTables and
//        listingTablesMigration. db.h: Migration::replaces (and
//        constructors).
//        resource.h: declarative CRUD resources (Resource, ResourceSpec,
//        ResourceField, FieldKind).
//        validation.h: Validator::currency and isCurrencyCode (deals and the
//        resource's Currency fields share them).
//        testing.h: the in-process harness (library librapport_testing.so,
//        Rapport::testing): Harness, HarnessOptions, Client, Reply.
//   5.1: db.h: Row::columnNames() (inline). selectPage reads the page and
//        the total of a list narrowed by its own index (a search of 3
//        characters or more, a tag filter beside other conditions) in one
//        statement (COUNT(*) OVER ()); same results.
//   5.2: api_doc.h: RouteDoc and the schema builders; Registry::describe and
//        Registry::schema (appended) for the API document
//        (GET /v1/openapi.json). Resource describes its routes.
//   6.0: beyond the spec (issue 12).
//        records.h: RecordLock::Update (a new enumerator) and
//        RecordType::path (a new member): the host's ETags and If-Match
//        checks on records (docs/api-choices.md "Conditional requests").
//        events.h: LoggedEvent, EventQuery, EventPage, EventLog and
//        Host::eventLog (GET /v1/events, webhook replays).
//        module.h: Host::notifyOwners (mail to a company's owners).
//   6.1: batch.h (BatchSpec, UpsertMatch) and Registry::batch, appended:
//        POST <collection>/batch. A Resource opts in by itself.
//   6.2: both appended to Registry, in this order:
//        metrics.h (MetricFamily, MetricSample, MetricCollector) and
//        Registry::metrics: a module's own families in GET /metrics (the
//        webhooks module's delivery gauges);
//        api_doc.h: RouteDocExtra (a cursor `meta`, a Public route that
//        reads the bearer token) and Registry::describeExtra;
//        schema::optionalText (a blank that clears the field).
//   7.0: the record query engine (issue 22, decisions §13):
//        record_query.h (QueryKind, QueryField, QueryInclude, RecordSchema,
//        ListRequest, RecordQuery: filter, multi-key sort, fields, include,
//        keyset cursors, POST <list>/search);
//        records.h: RecordType::query (a new member) and
//        RecordDirectory::query (a virtual inserted before augment);
//        pagination.h: SortKey and Sort::then (a new member: up to 3 keys);
//        where.h: WhereClause::addBound; list.h: countList;
//        api_doc.h: schema::anyOf. Resource answers the query language on
//        its lists and serves POST <path>/search.
//   7.1: db.h: Database::queryBounded (appended): a read bounded by the
//        operator's statement deadline (database.query_timeout), which the
//        record query engine's lists use (503 with Retry-After past it).
//   8.0: the record engine (issue 22): resource.h's Resource grown until a
//        record module is a declaration. FieldKind DateTime, Enum, Tags,
//        Reference and Related; ResourceField column, anyCase, indexed,
//        options, references (ResourceReference: the directory's lock, the
//        module that owns the type, sub-lists, unlinking), access
//        (FieldAccess: create-only, read-only), changeMessage,
//        sortExpression and description; ResourceSpec title, titlePlural,
//        schemaName, storage (ResourceStorage: the engine's migration of the
//        table, its indexes, search and listing tables), rules
//        (ResourceRules: check, beforeWrite in the write's transaction,
//        listFilters and listParameters), actions (ResourceAction,
//        ActionContext, ActionOutcome) and the API document's create and
//        delete sentences; Resource::migration; validate and where take the
//        modules that are not enabled; findValue and setValue read and write
//        ResourceValues; Resource::sortColumns is gone (every
//        field sorts, record_query.h). A PATCH that changes nothing writes
//        nothing and emits nothing.
//   9.0: custom fields (issue 23, custom_fields.h): ResourceSpec
//        customFields (ResourceCustomFields: the opt-in and its migration);
//        QueryField sideTable and sideKey (values in a side table, filtered
//        by a semi-join); batch.h's UpsertMatch takes the item's match_on.
//        Records of an opted-in resource carry custom_fields, and the
//        engine serves <path>/fields.
//   10.0: API keys with scopes (issue 24, decisions §15, scopes.h):
//        http.h: Identity gains principal (Principal: User, ApiKey), scopes,
//        isApiKey() and principalId(); RouteOptions gains scope (what a
//        key needs: a resource's scope name, an exact scope, kAnyApiKey,
//        or "" for routes refused to keys). resource.h: ResourceSpec::scope.
//        records.h: RecordType::scope and RecordDirectory::scope (appended).
//        record_query.h: ListRequest::caller (hops and includes need the
//        target's read scope). events.h: Actor, Event::actor, actorOf and
//        actorJson (who caused an event: user, api_key or system).
//   10.1: listing_tables.h: listingCountSlotsMigration (PostgreSQL count
//        slots chosen among the free ones, FOR UPDATE SKIP LOCKED);
//        Resource::migrations adds it as "<storage.migration>_count_slots".
//   10.2: search.h: addTextSearch(db, where, table, ftsTable, term) asks the
//        index for the term's two rarest trigrams (counts cached per
//        process) and checks the term on their records; kTrigramCountCap.
//        Resource lists search that way. selectPage's counted page (a
//        narrowed list) sorts rowids on SQLite and reads the page's rows
//        after the LIMIT; same rows.
#define RAPPORT_SDK_ABI_MAJOR 10
#define RAPPORT_SDK_ABI_MINOR 2
#define RAPPORT_MODULE_MAGIC 0x52505452u /* "RPTR" */

// The stamp's layout version. Changing the stamp is a MAJOR change and bumps
// this too, so that a host can tell a stamp it cannot read from a damaged one.
#define RAPPORT_STAMP_FORMAT 1
// The ELF section that holds the stamp in a module file.
#define RAPPORT_STAMP_SECTION ".rapport_stamp"

// The compiler family and major version of the translation unit that includes
// this header (the stamp records them for the module; the host for itself).
#if defined(__clang__)
#define RAPPORT_COMPILER_FAMILY "clang"
#define RAPPORT_COMPILER_MAJOR __clang_major__
#elif defined(__GNUC__)
#define RAPPORT_COMPILER_FAMILY "gcc"
#define RAPPORT_COMPILER_MAJOR __GNUC__
#else
#define RAPPORT_COMPILER_FAMILY "unknown"
#define RAPPORT_COMPILER_MAJOR 0
#endif

// The C++ standard library and the number that names its ABI: libstdc++'s
// string ABI (_GLIBCXX_USE_CXX11_ABI, 1 for the C++11 std::string) or
// libc++'s _LIBCPP_ABI_VERSION.
#if defined(_LIBCPP_VERSION)
#define RAPPORT_CXX_LIBRARY "libc++"
#define RAPPORT_CXX_LIBRARY_ABI _LIBCPP_ABI_VERSION
#elif defined(__GLIBCXX__)
#define RAPPORT_CXX_LIBRARY "libstdc++"
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define RAPPORT_CXX_LIBRARY_ABI _GLIBCXX_USE_CXX11_ABI
#else
#define RAPPORT_CXX_LIBRARY_ABI 0
#endif
#else
#define RAPPORT_CXX_LIBRARY "unknown"
#define RAPPORT_CXX_LIBRARY_ABI 0
#endif

// 1 when the standard containers are the library's debug ones, whose layout
// differs from the release ones (libstdc++ _GLIBCXX_DEBUG; libc++ debug mode).
#if defined(_GLIBCXX_DEBUG) ||                                           \
    (defined(_LIBCPP_ENABLE_DEBUG_MODE) && _LIBCPP_ENABLE_DEBUG_MODE) || \
    (defined(_LIBCPP_DEBUG) && (_LIBCPP_DEBUG + 0) >= 1)
#define RAPPORT_DEBUG_CONTAINERS 1
#else
#define RAPPORT_DEBUG_CONTAINERS 0
#endif

// Sizes of the stamp's char arrays, terminating NUL included.
#define RAPPORT_STAMP_NAME_SIZE 64
#define RAPPORT_STAMP_VERSION_SIZE 32
#define RAPPORT_STAMP_TAG_SIZE 16

extern "C" {
// What a module, the host and the SDK library say about how they were built.
// Plain fixed-size data: no pointers, no padding, the same bytes in memory and
// in the file. The first five fields are kept by every format, so that a host
// can name the SDK version of a stamp of another format.
struct rapport_module_stamp {
  std::uint32_t magic;                       // RAPPORT_MODULE_MAGIC
  std::uint32_t format;                      // RAPPORT_STAMP_FORMAT
  std::uint32_t size;                        // sizeof(rapport_module_stamp) of the writer
  std::uint32_t abi_major;                   // RAPPORT_SDK_ABI_MAJOR
  std::uint32_t abi_minor;                   // RAPPORT_SDK_ABI_MINOR
  std::uint32_t compiler_major;              // RAPPORT_COMPILER_MAJOR
  std::uint32_t cxx_library_abi;             // RAPPORT_CXX_LIBRARY_ABI
  std::uint32_t debug_containers;            // RAPPORT_DEBUG_CONTAINERS
  char compiler[RAPPORT_STAMP_TAG_SIZE];     // RAPPORT_COMPILER_FAMILY, NUL-terminated
  char cxx_library[RAPPORT_STAMP_TAG_SIZE];  // RAPPORT_CXX_LIBRARY, NUL-terminated
  char name[RAPPORT_STAMP_NAME_SIZE];        // must equal ModuleInfo::name
  char version[RAPPORT_STAMP_VERSION_SIZE];  // the module's version, for logs
};

// The module's factory; the host owns the returned object.
typedef rapport::Module* (*rapport_module_create_fn)();

// The stamp librapport_sdk.so was compiled with (name "rapport_sdk", version
// "MAJOR.MINOR.0"). The host compares it with its own build at start-up, before
// it loads any module, and refuses another SDK ABI major, an older minor, or
// another compiler, C++ library, library ABI or container mode. The pointer is
// to static data: valid for as long as the library is loaded; any thread.
RAPPORT_SDK_API const rapport_module_stamp* rapport_sdk_identity(void);
}

#define RAPPORT_MODULE_STAMP_SYMBOL "rapport_module_stamp"
#define RAPPORT_MODULE_CREATE_SYMBOL "rapport_module_create"

// The stamp of the translation unit that expands it: this build's values,
// with NAME and VERSION (string literals). RAPPORT_MODULE uses it; so do the
// host (its own expectations) and the SDK library (rapport_sdk_identity).
#define RAPPORT_STAMP_INITIALIZER(NAME, VERSION)                                     \
  {                                                                                  \
    RAPPORT_MODULE_MAGIC, RAPPORT_STAMP_FORMAT, sizeof(struct rapport_module_stamp), \
        RAPPORT_SDK_ABI_MAJOR, RAPPORT_SDK_ABI_MINOR, RAPPORT_COMPILER_MAJOR,        \
        RAPPORT_CXX_LIBRARY_ABI, RAPPORT_DEBUG_CONTAINERS, RAPPORT_COMPILER_FAMILY,  \
        RAPPORT_CXX_LIBRARY, NAME, VERSION                                           \
  }

// What makes a definition the module's stamp: its section, kept even when
// nothing refers to it, and exported under RAPPORT_MODULE_STAMP_SYMBOL (for
// tools such as nm; the host reads the section).
#define RAPPORT_STAMP_ATTRIBUTES \
  __attribute__((section(RAPPORT_STAMP_SECTION), used, visibility("default")))

#define RAPPORT_MODULE(ModuleClass, NAME, VERSION)                                             \
  static_assert(sizeof(NAME) > 1 && sizeof(NAME) <= RAPPORT_STAMP_NAME_SIZE,                   \
                "RAPPORT_MODULE: the module name must be a string literal of 1 to 63 "         \
                "characters");                                                                 \
  static_assert(sizeof(VERSION) <= RAPPORT_STAMP_VERSION_SIZE,                                 \
                "RAPPORT_MODULE: the module version must be a string literal of at most 31 "   \
                "characters");                                                                 \
  extern "C" RAPPORT_STAMP_ATTRIBUTES const rapport_module_stamp rapport_module_stamp =        \
      RAPPORT_STAMP_INITIALIZER(NAME, VERSION);                                                \
  extern "C" __attribute__((visibility("default"))) rapport::Module* rapport_module_create() { \
    return new ModuleClass();                                                                  \
  }
