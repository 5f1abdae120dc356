// The composition root: builds every host part from the settings, loads and
// sets up the modules, applies migrations and serves HTTP.
//
// Start-up order: storage -> modules loaded (stamp checks, dependency
// order) -> accounts and modules set up (routes, events, records, jobs,
// migrations registered) -> migrations applied -> modules started -> jobs ->
// revocation listener (PostgreSQL; waits up to 5 s for it) -> HTTP.
// Shutdown runs it backwards: HTTP drains, the listener stops, jobs stop, modules stop in
// reverse order, every handler and listener taken from a module is dropped,
// then the modules and their libraries go, then storage.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "accounts/AccountsModule.h"
#include "accounts/PasswordHasher.h"
#include "accounts/TokenService.h"
#include "accounts/revocation/RevocationListener.h"
#include "app/HostServices.h"
#include "app/Settings.h"
#include "conditional/ConditionalRoutes.h"
#include "events/EventBus.h"
#include "events/EventLogReader.h"
#include "events/EventNumbering.h"
#include "http/HttpServer.h"
#include "http/Router.h"
#include "http/TrustedProxies.h"
#include "http/UtilityRoutes.h"
#include "http/VersionPolicy.h"
#include "idempotency/IdempotencyKeys.h"
#include "jobs/JobRunner.h"
#include "loader/ModuleLoader.h"
#include "mail/MailService.h"
#include "metrics/Exporter.h"
#include "openapi/ApiSchemas.h"
#include "openapi/OpenApiDocument.h"
#include "ratelimit/RateLimitStores.h"
#include "records/Directory.h"
#include "secrets/SecretBox.h"
#include "storage/Migrator.h"
#include "storage/SqlDatabase.h"

namespace rapport::host {

class Server {
 public:
  // Opens storage, loads and sets up modules. Throws with a one-line reason.
  explicit Server(const Settings& settings, const std::string& executableDir);
  ~Server();

  // Applies pending migrations (host first, then modules in dependency order).
  std::vector<AppliedMigration> migrate();
  // Starts modules, jobs and the HTTP server. When a module's start() throws
  // or the server cannot listen, the modules already started are stopped
  // (in reverse) before the exception leaves.
  void start();
  // start() without the HTTP listener, for the in-process test harness
  // (sdk/testing): requests come in through handle() instead.
  void startWithoutListening();
  // Serves one request through the Pipeline the HTTP server would use, on
  // the calling thread (any number at once). Between startWithoutListening()
  // and stop() it never throws (a failure is its 500); std::logic_error
  // outside that span.
  RawResponse handle(const RawRequest& request) const;
  // Stops everything in reverse; safe to call twice.
  void stop();
  int port() const;
  // The configuration with the enabled modules' keys declared (their
  // defaults, environment overrides and unknown-key report included).
  const Settings& settings() const { return settings_; }
  Database& database() { return *db_; }
  const std::vector<LoadedModule>& modules() const { return modules_; }
  // Every route and the API document's schemas: complete once constructed.
  const Router& router() const { return router_; }
  const ApiSchemas& schemas() const { return *schemas_; }
  const ConditionalRoutes* conditions() const { return conditions_.get(); }
  // The API document GET /v1/openapi.json serves (built at its first use).
  const ApiDocument& document() const { return *document_; }

 private:
  void setUpModule(rapport::Module& module, const std::string& name);
  // start() with or without the HTTP listener.
  void startServing(bool listen);
  // stop() of the started modules, last started first, then of accounts.
  void stopModules();

  // A copy: the modules' declared configuration keys are added to it when
  // they load (ModuleConfiguration.h); what every module's config() reads.
  Settings settings_;
  std::unique_ptr<SqlDatabase> db_;
  // Declared before anything that holds module code, so it is destroyed last.
  std::vector<LoadedModule> modules_;
  std::set<std::string> enabled_;
  Router router_;
  // The API document's named schemas (host/openapi), filled during setup.
  // Made after the SDK library check: its schemas come from that library.
  std::unique_ptr<ApiSchemas> schemas_;
  EventBus events_;
  // PostgreSQL: numbers each company's events after their commit (nullptr on SQLite).
  std::shared_ptr<EventNumbering> eventNumbering_;
  EventLogReader eventLog_;  // Host::eventLog and GET /v1/events
  Directory records_;
  JobRunner jobs_;
  // The families modules report themselves (Registry::metrics), rendered by
  // metrics_ while it runs.
  metrics::ModuleMetrics moduleMetrics_;
  std::unique_ptr<AesGcmSecretBox> secrets_;
  // ratelimit.store: the Pipeline's limit and the login throttle's log, in
  // memory or in the redis every instance shares (before accounts_ and
  // pipeline_, which hold references to them).
  RateLimitStores rateLimits_;
  TrustedProxies trustedProxies_;  // server.trusted_proxies
  std::unique_ptr<VersionPolicy> versions_;
  // Before accounts_, which holds a reference to it. Its sender is a job of
  // jobs_; what is queued stays in the database across a stop.
  std::unique_ptr<mail::MailService> mail_;
  // Host::notifyOwners for every module (after mail_, which it sends through).
  std::unique_ptr<mail::OwnerNotices> ownerNotices_;
  std::unique_ptr<accounts::PasswordHasher> hasher_;
  std::unique_ptr<accounts::TokenService> tokens_;
  // PostgreSQL only: revocation notices from every instance (after tokens_,
  // which it feeds, so it is destroyed first).
  std::unique_ptr<accounts::RevocationListener> revocations_;
  std::unique_ptr<accounts::AccountsModule> accounts_;
  std::vector<std::unique_ptr<HostServices>> services_;
  std::vector<MigrationSet> migrations_;
  // Idempotency-Key (uses db_ and secrets_) and conditional requests on
  // records (built once every module registered its routes); the pipeline
  // holds both.
  std::unique_ptr<IdempotencyKeys> idempotency_;
  std::unique_ptr<ConditionalRoutes> conditions_;
  // The API document (reads router_, schemas_, conditions_, versions_):
  // served, and what api.check_responses holds answers to.
  std::unique_ptr<ApiDocument> document_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<Pipeline> pipeline_;  // serves http_ and handle()
  // metrics.listen: reads http_ and the modules' collectors, so it goes
  // before them.
  std::unique_ptr<metrics::Exporter> metrics_;
  bool accountsStarted_ = false;
  std::size_t modulesStarted_ = 0;  // modules_[0, modulesStarted_) have had start()
};

}  // namespace rapport::host
