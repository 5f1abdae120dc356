// rapport::Host as one module sees it: the shared database, record
// directory, configuration, event catalogue and secret box, and a logger
// that names the module.
#pragma once

#include <set>
#include <string>

#include "log/Log.h"
#include "rapport/module.h"

namespace rapport::host {

class HostServices : public rapport::Host {
 public:
  HostServices(std::string module, Database& db, const RecordDirectory& records,
               const Config& config, const std::set<std::string>& enabled,
               const EventCatalogue& events, const SecretBox& secrets)
      : db_(db),
        records_(records),
        config_(config),
        enabled_(enabled),
        events_(events),
        secrets_(secrets),
        log_(std::move(module)) {}

  Database& db() override { return db_; }
  const RecordDirectory& records() override { return records_; }
  const Config& config() override { return config_; }
  Logger& log() override { return log_; }
  bool moduleEnabled(const std::string& name) const override { return enabled_.count(name) > 0; }
  const EventCatalogue& events() const override { return events_; }
  const SecretBox& secrets() const override { return secrets_; }

 private:
  Database& db_;
  const RecordDirectory& records_;
  const Config& config_;
  const std::set<std::string>& enabled_;
  const EventCatalogue& events_;
  const SecretBox& secrets_;
  log::ModuleLogger log_;
};

}  // namespace rapport::host
