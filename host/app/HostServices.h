// rapport::Host as one module sees it: the shared database, record
// directory, configuration, event catalogue, secret box and owner notices
// (mail), and a logger that names the module.
#pragma once

#include <set>
#include <string>

#include "log/Log.h"
#include "mail/OwnerNotices.h"
#include "rapport/module.h"

namespace rapport::host {

class HostServices : public rapport::Host {
 public:
  HostServices(std::string module, Database& db, const RecordDirectory& records,
               const Config& config, const std::set<std::string>& enabled,
               const EventCatalogue& events, const SecretBox& secrets,
               const mail::OwnerNotices& owners, const EventLog& eventLog)
      : db_(db),
        records_(records),
        config_(config),
        enabled_(enabled),
        events_(events),
        secrets_(secrets),
        owners_(owners),
        eventLog_(eventLog),
        log_(std::move(module)) {}

  Database& db() override { return db_; }
  const RecordDirectory& records() override { return records_; }
  const Config& config() override { return config_; }
  Logger& log() override { return log_; }
  bool moduleEnabled(const std::string& name) const override { return enabled_.count(name) > 0; }
  const EventCatalogue& events() const override { return events_; }
  const SecretBox& secrets() const override { return secrets_; }
  const EventLog& eventLog() const override { return eventLog_; }
  void notifyOwners(const std::string& companyId, const std::string& subject,
                    const std::string& text) override {
    owners_.notify(companyId, subject, text);
  }

 private:
  Database& db_;
  const RecordDirectory& records_;
  const Config& config_;
  const std::set<std::string>& enabled_;
  const EventCatalogue& events_;
  const SecretBox& secrets_;
  const mail::OwnerNotices& owners_;
  const EventLog& eventLog_;
  log::ModuleLogger log_;
};

}  // namespace rapport::host
