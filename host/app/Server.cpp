#include "app/Server.h"

#include <chrono>
#include <limits>
#include <stdexcept>

#include "app/ModuleConfiguration.h"
#include "app/ModuleRegistry.h"
#include "events/EventNumbering.h"
#include "events/EventRetention.h"
#include "events/EventsRoute.h"
#include "events/HostEventTypes.h"
#include "host_migrations.gen.h"
#include "loader/SdkLibraryCheck.h"
#include "log/Log.h"
#include "openapi/OpenApiRoute.h"
#include "openapi/ResponseCheck.h"
#include "storage/DatabaseUrl.h"

namespace rapport::host {
namespace {

StorageOptions storageOptions(const Settings& s) {
  StorageOptions o;
  o.url = s.getString("database.url", o.url);
  o.poolSize = static_cast<int>(s.getInt("database.pool_size", o.poolSize));
  o.acquireTimeoutMs =
      static_cast<int>(s.getInt("database.acquire_timeout_ms", o.acquireTimeoutMs));
  o.sqliteBusyTimeoutMs =
      static_cast<int>(s.getInt("database.sqlite_busy_timeout_ms", o.sqliteBusyTimeoutMs));
  o.lockTimeoutMs = static_cast<int>(s.getInt("database.lock_timeout_ms", o.lockTimeoutMs));
  o.queryTimeoutMs = static_cast<int>(s.getInt("database.query_timeout_ms", o.queryTimeoutMs));
  const std::string sync = s.getString("database.sqlite_synchronous", "full");
  if (sync != "full" && sync != "normal") {
    throw std::invalid_argument("database.sqlite_synchronous must be full or normal (got '" + sync +
                                "')");
  }
  o.sqliteFullSync = sync == "full";
  return o;
}

// Deadlines are whole seconds, at most a day; `least` is 0 where zero means
// "off" (keep-alive).
std::chrono::milliseconds seconds(const Settings& s, const std::string& key,
                                  std::chrono::milliseconds fallback, std::int64_t least = 1) {
  const auto current = std::chrono::duration_cast<std::chrono::seconds>(fallback).count();
  return std::chrono::seconds(s.getIntBetween(key, current, least, 86400));
}

// A count that must not be negative.
std::size_t count(const Settings& s, const std::string& key, std::size_t fallback) {
  return static_cast<std::size_t>(s.getIntBetween(key, static_cast<std::int64_t>(fallback), 0,
                                                  std::numeric_limits<std::int64_t>::max()));
}

HttpOptions httpOptions(const Settings& s) {
  HttpOptions o;
  o.host = s.getString("server.host", o.host);
  o.port = static_cast<int>(s.getInt("server.port", o.port));
  o.ioThreads = static_cast<int>(s.getInt("server.io_threads", o.ioThreads));
  o.threads = static_cast<int>(s.getInt("server.threads", o.threads));
  o.maxQueued = static_cast<int>(s.getInt("server.max_queued", o.maxQueued));
  ConnectionLimits& l = o.limits;
  l.keepAlive = seconds(s, "server.keep_alive_timeout", l.keepAlive, 0);
  l.header = seconds(s, "server.header_timeout", l.header);
  l.body = seconds(s, "server.body_timeout", l.body);
  l.send = seconds(s, "server.send_timeout", l.send);
  l.maxConnections = count(s, "server.max_connections", l.maxConnections);
  l.maxPerAddress = count(s, "server.max_connections_per_address", l.maxPerAddress);
  l.maxBodyBytes = count(s, "server.max_body_bytes", l.maxBodyBytes);
  return o;
}

PipelineOptions pipelineOptions(const Settings& s, const ApiDocument& document) {
  PipelineOptions o;
  if (s.getBool("api.check_responses", false)) {
    o.checkResponse = [&document](const Route& route, const RawResponse& response) {
      return responseMismatch(document, route, response);
    };
  }
  o.rateLimitRequests = s.getInt("ratelimit.requests", o.rateLimitRequests);
  o.rateLimitWindow = s.getInt("ratelimit.window", o.rateLimitWindow);
  o.onStoreError = onStoreErrorFrom(s);
  if (o.rateLimitRequests < 1 || o.rateLimitWindow < 1) {
    throw std::invalid_argument("ratelimit.requests and ratelimit.window must be at least 1");
  }
  return o;
}

}  // namespace

Server::Server(const Settings& settings, const std::string& executableDir) : settings_(settings) {
  // The librapport_sdk.so the dynamic linker found must be the SDK this host
  // was built against, before any module (or storage, which uses it) runs.
  checkLoadedSdkLibrary();
  schemas_ = std::make_unique<ApiSchemas>();
  // Configuration refusals first, before storage is touched.
  trustedProxies_ = TrustedProxies::parse(settings.getString("server.trusted_proxies", ""));
  rateLimits_ = openRateLimitStores(settings);
  log::info("rate limits ready", {{"store", rateLimits_.description}});
  db_ = SqlDatabase::open(storageOptions(settings));
  eventNumbering_ = connectEventLog(*db_, events_);
  // Before any module: a module that declares one of them is refused.
  declareHostEventTypes(events_);
  log::info("storage ready", {{"database", db_->describe()}});

  std::vector<std::string> enabled = splitList(settings.get("modules.enabled"));
  enabled_ = std::set<std::string>(enabled.begin(), enabled.end());
  modules_ = ModuleLoader(moduleDirectories(settings, executableDir)).load(enabled);
  declareModuleKeys(settings_, modules_);

  versions_ = std::make_unique<VersionPolicy>(settings);
  registerUtilityRoutes(router_, *versions_, [this] { return db_->ping(); });

  migrations_.push_back(MigrationSet{"host", rapport_generated::host::migrations()});
  secrets_ = AesGcmSecretBox::fromConfig(settings);
  idempotency_ =
      std::make_unique<IdempotencyKeys>(*db_, *secrets_, IdempotencyKeys::optionsFrom(settings));
  jobs_.add(idempotency_->purgeJob());
  jobs_.add(
      eventRetentionJob(*db_, static_cast<int>(settings.getInt("events.retention_days", 30))));
  if (eventNumbering_) {
    eventNumbering_->wakeWith(jobs_.add(eventNumbering_->numberingJob()));
    eventLog_.catchUpWith([numbering = eventNumbering_] { numbering->catchUp(); });
  }
  auto accountsOptions = accounts::AccountsOptions::fromConfig(settings);
  hasher_ = std::make_unique<accounts::PasswordHasher>(accountsOptions.argon2);
  tokens_ = std::make_unique<accounts::TokenService>(*db_, accountsOptions.tokenOptions());
  if (db_->dialect() == rapport::Dialect::PostgreSQL) {
    revocations_ = std::make_unique<accounts::RevocationListener>(
        parseDatabaseUrl(settings.getString("database.url", "")).connectionString, *tokens_);
  }
  // The outbox table's sender, on every instance (docs/mail.md).
  mail_ = mail::MailService::fromConfig(settings, *db_, *secrets_);
  mail_->wakeWith(jobs_.add(mail_->sendJob()));
  jobs_.add(mail_->purgeJob());
  ownerNotices_ = std::make_unique<mail::OwnerNotices>(*db_, *mail_);
  // Failed logins are kept in a sliding-window log (what the fixed-window
  // request limit cannot express), in memory or shared through redis.
  accounts_ = std::make_unique<accounts::AccountsModule>(accountsOptions, *tokens_, *hasher_,
                                                         *mail_, *rateLimits_.attempts);
  // Read at the first key made or changed, every module's routes registered by then.
  accounts_->setScopeCatalogue([this] { return router_.scopes(); });
  setUpModule(*accounts_, "accounts");
  // GET /v1/events: a host route, described under the tag "events".
  ModuleRegistry eventsRegistry("events", HostParts{router_, events_, records_, jobs_, *schemas_,
                                                    db_.get(), &moduleMetrics_});
  registerEventsRoute(eventsRegistry, *db_, events_, eventLog_);
  for (auto& loaded : modules_) setUpModule(*loaded.module, loaded.info.name);
  conditions_ =
      std::make_unique<ConditionalRoutes>(router_, records_.paths(), "/v1", records_, *db_);
  // Last, so that the document it serves lists every route above.
  document_ = std::make_unique<ApiDocument>(router_, *schemas_, conditions_.get(), versions_.get());
  registerOpenApiRoute(router_, *document_, *db_);
}

Server::~Server() {
  stop();
}

void Server::setUpModule(rapport::Module& module, const std::string& name) {
  auto services = std::make_unique<HostServices>(name, *db_, records_, settings_, enabled_, events_,
                                                 *secrets_, *ownerNotices_, eventLog_);
  ModuleRegistry registry(
      name, HostParts{router_, events_, records_, jobs_, *schemas_, db_.get(), &moduleMetrics_});
  try {
    module.setup(*services, registry);
  } catch (const std::exception& e) {
    throw std::runtime_error("module '" + name + "' failed to set up: " + e.what());
  }
  MigrationSet set = registry.migrations();
  if (!set.migrations.empty()) migrations_.push_back(std::move(set));
  services_.push_back(std::move(services));
}

std::vector<AppliedMigration> Server::migrate() {
  auto applied = Migrator(*db_).apply(migrations_);
  for (const auto& m : applied) {
    // A squash on a database that has what it replaces is recorded, not run.
    log::info(m.ran ? "migration applied" : "migration recorded, its replaced ones being applied",
              {{"owner", m.owner}, {"id", m.id}});
  }
  return applied;
}

void Server::start() {
  startServing(true);
}

void Server::startWithoutListening() {
  startServing(false);
}

RawResponse Server::handle(const RawRequest& request) const {
  if (!pipeline_) throw std::logic_error("Server::handle before startWithoutListening");
  return pipeline_->handle(request);
}

void Server::startServing(bool listen) {
  accounts_->start();
  accountsStarted_ = true;
  try {
    for (auto& loaded : modules_) {
      try {
        loaded.module->start();
      } catch (const std::exception& e) {
        throw std::runtime_error("module '" + loaded.info.name + "' failed to start: " + e.what());
      }
      ++modulesStarted_;
      log::info(
          "module started",
          {{"module", loaded.info.name}, {"version", loaded.info.version}, {"file", loaded.file}});
    }
    jobs_.start();
    if (revocations_) {
      revocations_->start();
      // Serving before it listens is safe (hits are confirmed meanwhile),
      // but a healthy database answers in milliseconds.
      if (!revocations_->waitUntilListening(std::chrono::seconds(5))) {
        log::warn("serving before revocation notices are live");
      }
    }
    // One Pipeline, for the listener and for the in-process harness alike.
    PipelineOptions requests = pipelineOptions(settings_, *document_);
    requests.conditions = conditions_.get();
    requests.idempotency = idempotency_.get();
    pipeline_ = std::make_unique<Pipeline>(router_, *tokens_, *rateLimits_.requests, *versions_,
                                           std::move(requests));
    if (listen) {
      HttpOptions options = httpOptions(settings_);
      options.trustedProxies = trustedProxies_;
      http_ = std::make_unique<HttpServer>(std::move(options), *pipeline_);
      http_->start();
      metrics_ = metrics::Exporter::start(settings_.get("metrics.listen"), &http_->stats(),
                                          &moduleMetrics_);
    }
  } catch (...) {
    // The modules already started hold threads, connections or files: they
    // stop (in reverse) before the failure reaches the caller.
    metrics_.reset();
    http_.reset();
    pipeline_.reset();
    if (revocations_) revocations_->stop();
    jobs_.stop();
    stopModules();
    throw;
  }
}

int Server::port() const {
  return http_ ? http_->port() : 0;
}

void Server::stop() {
  metrics_.reset();
  if (http_ && !http_->stop()) {
    // Requests still run on the server's workers through the Pipeline:
    // leave both alive (the process is about to exit).
    [[maybe_unused]] auto* server = http_.release();
    [[maybe_unused]] auto* pipeline = pipeline_.release();
  }
  http_.reset();
  pipeline_.reset();
  if (revocations_) revocations_->stop();
  jobs_.stop();
  stopModules();
  // Drop every function object that came from a module before the modules
  // (and their libraries) are destroyed.
  router_.clear();
  events_.clear();
  records_.clear();
  jobs_.clear();
  services_.clear();
  // Modules go in reverse dependency order; each library after its module.
  while (!modules_.empty()) modules_.pop_back();
}

void Server::stopModules() {
  while (modulesStarted_ > 0) {
    const LoadedModule& loaded = modules_[--modulesStarted_];
    try {
      loaded.module->stop();
    } catch (const std::exception& e) {
      log::error("module failed to stop", {{"module", loaded.info.name}, {"error", e.what()}});
    }
  }
  if (accountsStarted_) accounts_->stop();
  accountsStarted_ = false;
}

}  // namespace rapport::host
