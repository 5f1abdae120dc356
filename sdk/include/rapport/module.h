// The module interface: what a module declares and how it registers itself.
//
// Lifecycle, in order (the host never unloads a module while serving):
//   1. the host reads the module's ABI stamp (abi.h) from the file, without
//      loading it, and refuses a mismatch: nothing of a refused module runs;
//   2. it loads the library (its static initialisers run), creates the
//      module (rapport_module_create) and reads info();
//   3. in dependency order it calls setup(): the module keeps `host` and
//      registers routes, migrations, event types, record types, reactions
//      and jobs on `registry` (only during setup);
//   4. the host applies migrations, then calls start() in dependency order;
//      when a start() throws, or the server cannot listen, the modules
//      already started get stop() in reverse order before start-up fails;
//   5. on shutdown: the server stops accepting and drains, jobs stop (their
//      threads are joined; JobHandle::wake stays safe and does nothing),
//      stop() runs in reverse order, then the module object is destroyed,
//      then its library is released.
// Everything a module gets from `host` stays valid from setup() to stop().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rapport/api_doc.h"
#include "rapport/batch.h"
#include "rapport/config.h"
#include "rapport/db.h"
#include "rapport/events.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/jobs.h"
#include "rapport/log.h"
#include "rapport/metrics.h"
#include "rapport/records.h"
#include "rapport/secrets.h"

namespace rapport {

struct ModuleInfo {
  // Every member has a default, so a module's designated initializer names
  // only what it has: {.name = "products", .version = "1.0.0", ...}.
  std::string name = {};     // unique, lowercase: "contacts"
  std::string version = {};  // the module's own version: "1.0.0"
  std::string description = {};
  std::vector<std::string> dependencies =
      {};  // modules that must be enabled (start-up fails otherwise)
  std::vector<std::string> optional = {};  // modules used when enabled (set up first if present)
  // The configuration keys the module reads, each "<name>.<key>" with its
  // default and description (config.h); empty when it reads none. Checked
  // at load, listed by `rapportd --help` and `--print-config`.
  std::vector<ConfigKey> configuration = {};
};

// Services the host lends a module for its whole life.
class RAPPORT_VISIBLE Host {
 public:
  virtual ~Host() = default;
  virtual Database& db() = 0;
  virtual const RecordDirectory& records() = 0;
  virtual const Config& config() = 0;
  virtual Logger& log() = 0;
  // True when a module of that name is enabled (for optional links).
  virtual bool moduleEnabled(const std::string& name) const = 0;
  // The event types every enabled module declared (complete from start() on).
  virtual const EventCatalogue& events() const = 0;
  // Seals secrets before they are stored (secrets.h).
  virtual const SecretBox& secrets() const = 0;
  // Since 6.0. Reads the company's event log (events.h).
  virtual const EventLog& eventLog() const = 0;
  // Since 6.0. E-mails every owner of `companyId` (plain text, through the
  // host's mailer: mail.* keys). For notices an owner must act on (a
  // webhook disabled); throws rapport::DbError when the owners cannot be
  // read, and logs, without throwing, a message the mailer refused.
  virtual void notifyOwners(const std::string& companyId, const std::string& subject,
                            const std::string& text) = 0;
};

// What a module registers during setup(). Paths are relative to the version
// prefix: "/crm/contacts/{id}" serves "/v1/crm/contacts/{id}".
class RAPPORT_VISIBLE Registry {
 public:
  virtual ~Registry() = default;
  virtual void route(const std::string& method, const std::string& path, Handler handler,
                     RouteOptions options = {}) = 0;
  virtual void migration(Migration migration) = 0;
  virtual void eventType(const std::string& type, const std::string& description) = 0;
  // Record types this module owns, and what it does about other modules'
  // records (records.h explains each one).
  virtual void recordType(const std::string& type, RecordType record) = 0;
  virtual void guardDeletion(const std::string& type, RecordDeletionGuard guard) = 0;
  virtual void onRecordDeleted(const std::string& type, RecordDeleted reaction) = 0;
  virtual void augment(const std::string& type, RecordAugment augment) = 0;
  virtual void onEvent(EventListener listener) = 0;
  // The handle wakes the job (jobs.h); keep it for as long as the module lives.
  virtual JobHandle job(Job job) = 0;
  // Since 5.2 (api_doc.h). Describes a route this module registered with
  // route() (same method and path) for the API document; throws
  // std::logic_error when there is no such route, or it was described
  // already.
  virtual void describe(const std::string& method, const std::string& path, RouteDoc doc) = 0;
  // Since 5.2. A named schema for schema::ref(name) in the document's
  // components; names are unique across modules (a clash stops start-up,
  // naming both modules). Prefer the module's nouns: "Contact", "Deal".
  virtual void schema(const std::string& name, Json schema) = 0;
  // Since 6.1 (batch.h). Serves POST collectionPath + "/batch" from this
  // module's POST collectionPath and PATCH collectionPath + "/{id}" routes,
  // which must be registered already (std::logic_error otherwise).
  virtual void batch(const std::string& collectionPath, BatchSpec spec) = 0;
  // Since 6.2 (metrics.h). Declares `families` and the collector the host
  // calls at each scrape of GET /metrics for their samples; throws
  // std::logic_error for a name or label metrics.h refuses, or a family
  // another module declared. May be called more than once.
  virtual void metrics(std::vector<MetricFamily> families, MetricCollector collect) = 0;
};

class RAPPORT_VISIBLE Module {
 public:
  virtual ~Module() = default;
  virtual ModuleInfo info() const = 0;
  virtual void setup(Host& host, Registry& registry) = 0;
  virtual void start() {}
  virtual void stop() {}
};

}  // namespace rapport
