// rapport::Registry for one module: forwards what the module registers
// during setup() to the host's router, event bus, record directory, job
// runner, API schemas and migration list, stamped with the module's name.
#pragma once

#include <string>

#include "events/EventBus.h"
#include "http/Router.h"
#include "jobs/JobRunner.h"
#include "metrics/ModuleMetrics.h"
#include "openapi/ApiSchemas.h"
#include "rapport/module.h"
#include "records/Directory.h"
#include "storage/Migrator.h"

namespace rapport::host {

struct HostParts {
  Router& router;
  EventBus& events;
  Directory& records;
  JobRunner& jobs;
  ApiSchemas& schemas;
  // What batch upserts match on (Registry::batch); null: upserts refused.
  rapport::Database* db = nullptr;
  // Where Registry::metrics declares a module's families; null: ignored.
  metrics::ModuleMetrics* metrics = nullptr;
};

class ModuleRegistry : public rapport::Registry {
 public:
  ModuleRegistry(std::string module, HostParts parts) : module_(std::move(module)), parts_(parts) {}

  void route(const std::string& method, const std::string& path, Handler handler,
             RouteOptions options) override;
  void migration(Migration migration) override;
  void eventType(const std::string& type, const std::string& description) override;
  void recordType(const std::string& type, RecordType record) override;
  void guardDeletion(const std::string& type, RecordDeletionGuard guard) override;
  void onRecordDeleted(const std::string& type, RecordDeleted reaction) override;
  void augment(const std::string& type, RecordAugment augment) override;
  void onEvent(EventListener listener) override;
  JobHandle job(Job job) override;
  void describe(const std::string& method, const std::string& path, RouteDoc doc) override;
  void schema(const std::string& name, Json schema) override;
  void batch(const std::string& collectionPath, BatchSpec spec) override;
  void metrics(std::vector<MetricFamily> families, MetricCollector collect) override;

  // The module's migrations, in id order.
  MigrationSet migrations() const;

 private:
  std::string module_;
  HostParts parts_;
  std::vector<Migration> migrations_;
};

}  // namespace rapport::host
