// Shared pieces of the accounts unit tests: a migrated database on the
// engine under test, a clock tests move by hand, and fakes of the module
// plumbing (Registry, Host) so route handlers can be called without HTTP.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "accounts/Clock.h"
#include "events/EventBus.h"
#include "events/EventLogReader.h"
#include "mail/Mailer.h"
#include "rapport/error.h"
#include "rapport/module.h"
#include "secrets/SecretBox.h"
#include "storage/SqlDatabase.h"

namespace rapport::test::accounts {

// The host's migration set, as the app embeds it (same ids, both dialects),
// read from migrations/<dialect>/*.sql of the source tree.
std::vector<rapport::Migration> hostMigrations();

// The database at `url` (default: a fresh one of the test engine) with every
// host migration applied.
std::unique_ptr<rapport::host::SqlDatabase> openMigratedDatabase(const std::string& url = {},
                                                                 std::size_t poolSize = 4);

// Starts one second into a 60-second window, so login windows are predictable.
class ManualClock {
 public:
  ManualClock();
  rapport::host::accounts::Clock clock();
  std::int64_t now() const { return now_.load(); }
  void advanceSeconds(std::int64_t seconds);
  void advanceMicros(std::int64_t micros);

 private:
  std::atomic<std::int64_t> now_;
};

class SilentLogger : public rapport::Logger {
 public:
  void debug(const std::string&) override {}
  void info(const std::string&) override {}
  void warn(const std::string&) override {}
  void error(const std::string&) override {}
};

// Keeps every message sent, in order, instead of delivering it. Checks the
// recipient as the real mailer does (std::invalid_argument). Thread-safe.
class RecordingMailer : public rapport::host::mail::Mailer {
 public:
  void send(rapport::host::mail::MailMessage message) override;
  // A copy of every message sent so far.
  std::vector<rapport::host::mail::MailMessage> messages() const;
  void clear();

 private:
  mutable std::mutex mutex_;
  std::vector<rapport::host::mail::MailMessage> messages_;
};

class MapConfig : public rapport::Config {
 public:
  std::map<std::string, std::string> values;
  bool has(const std::string& key) const override { return values.count(key) > 0; }
  std::string getString(const std::string& key, const std::string& fallback) const override;
  std::int64_t getInt(const std::string& key, std::int64_t fallback) const override;
  bool getBool(const std::string& key, bool fallback) const override;
};

class NoRecords : public rapport::RecordDirectory {
 public:
  bool knows(const std::string&) const override { return false; }
  bool exists(Queryable&, const std::string&, const std::string&,
              const std::string&) const override {
    return false;
  }
  bool lockForReference(Tx&, const std::string&, const std::string&) const override {
    return false;
  }
  std::optional<rapport::Json> fetch(Queryable&, const std::string&, const std::string&,
                                     const std::string&, rapport::RecordLock) const override {
    return std::nullopt;
  }
  const rapport::RecordQuery* query(const std::string&) const override { return nullptr; }
  void augment(Queryable&, const std::string&, const std::string&,
               rapport::Json::Array&) const override {}
  void deleted(Tx&, const std::string&, const std::string&) const override {}
  std::string scope(const std::string&) const override { return {}; }
};

class FakeHost : public rapport::Host {
 public:
  explicit FakeHost(rapport::Database& db) : db_(db) {}
  rapport::Database& db() override { return db_; }
  const rapport::RecordDirectory& records() override { return records_; }
  const rapport::Config& config() override { return config_; }
  rapport::Logger& log() override { return log_; }
  bool moduleEnabled(const std::string&) const override { return false; }
  const rapport::EventCatalogue& events() const override { return events_; }
  const rapport::SecretBox& secrets() const override { return secrets_; }
  const rapport::EventLog& eventLog() const override { return eventLog_; }
  void notifyOwners(const std::string&, const std::string&, const std::string&) override {}

 private:
  rapport::Database& db_;
  NoRecords records_;
  MapConfig config_;
  SilentLogger log_;
  rapport::host::EventBus events_;
  rapport::host::EventLogReader eventLog_;
  rapport::host::AesGcmSecretBox secrets_{
      std::string(rapport::host::AesGcmSecretBox::kKeyBytes, 'k')};
};

// A handle whose wake() only counts (the tests run jobs by hand).
class CountingWaker : public rapport::JobWaker {
 public:
  void wake() override { ++wakes; }
  void wakeOne() override { ++wakes; }
  int wakes = 0;
};

// Captures what a module registers, and calls its handlers directly,
// refusing (401, 403) what the pipeline would refuse before the handler.
class FakeRegistry : public rapport::Registry {
 public:
  struct Route {
    rapport::Handler handler;
    rapport::RouteOptions options;
  };
  std::map<std::string, Route> routes;  // "POST /auth/login"
  std::map<std::string, rapport::RecordType> recordTypes;
  std::vector<rapport::Job> jobs;

  void route(const std::string& method, const std::string& path, rapport::Handler handler,
             rapport::RouteOptions options) override;
  void migration(rapport::Migration) override {}
  void eventType(const std::string&, const std::string&) override {}
  void recordType(const std::string& type, rapport::RecordType record) override;
  void guardDeletion(const std::string&, rapport::RecordDeletionGuard) override {}
  void onRecordDeleted(const std::string&, rapport::RecordDeleted) override {}
  void augment(const std::string&, rapport::RecordAugment) override {}
  void onEvent(rapport::EventListener) override {}
  rapport::JobHandle job(rapport::Job job) override {
    jobs.push_back(std::move(job));
    return std::make_shared<CountingWaker>();
  }
  // As the host's: only a registered route can be described, once.
  void describe(const std::string& method, const std::string& path,
                rapport::RouteDoc doc) override {
    const std::string key = method + " " + path;
    if (!routes.count(key) || docs.count(key)) {
      throw std::logic_error("describe " + key + ": not registered, or described twice");
    }
    docs.emplace(key, std::move(doc));
  }
  void schema(const std::string& name, rapport::Json value) override {
    schemas[name] = std::move(value);
  }
  void batch(const std::string&, rapport::BatchSpec) override {}
  void metrics(std::vector<rapport::MetricFamily>, rapport::MetricCollector) override {}
  void describeExtra(const std::string& method, const std::string& path,
                     rapport::RouteDocExtra extra) override {
    const std::string key = method + " " + path;
    if (!docs.count(key) || extras.count(key)) {
      throw std::logic_error("describeExtra " + key + ": not described, or given twice");
    }
    extras.emplace(key, std::move(extra));
  }
  std::map<std::string, rapport::RouteDoc> docs;
  std::map<std::string, rapport::RouteDocExtra> extras;
  std::map<std::string, rapport::Json> schemas;

  // Runs the handler of "METHOD path" (the registered pattern) for `request`,
  // after the pipeline's access and role checks.
  rapport::Response call(const std::string& method, const std::string& path,
                         rapport::Request request) const;
};

// A request as the pipeline would hand it over.
rapport::Request makeRequest(rapport::Json body = rapport::Json::object(),
                             std::optional<rapport::Identity> identity = std::nullopt,
                             const std::string& clientAddress = "192.0.2.10");

// The status of the rapport::Error `fn` throws; fails the test when it throws none.
template <typename Fn>
rapport::Error expectError(Fn&& fn) {
  try {
    fn();
  } catch (const rapport::Error& e) {
    return e;
  }
  throw std::runtime_error("expected a rapport::Error, none was thrown");
}

}  // namespace rapport::test::accounts
