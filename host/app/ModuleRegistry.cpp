#include "app/ModuleRegistry.h"

#include <algorithm>
#include <stdexcept>

#include "batch/BatchRoute.h"

namespace rapport::host {

void ModuleRegistry::route(const std::string& method, const std::string& path, Handler handler,
                           RouteOptions options) {
  if (path.empty() || path.front() != '/') {
    throw std::logic_error("module '" + module_ + "': route path must start with '/': " + path);
  }
  // Modules register version-relative paths; v1 is the only version served.
  parts_.router.add(method, "/v1" + path, std::move(handler), std::move(options), module_);
}

void ModuleRegistry::migration(Migration migration) {
  migrations_.push_back(std::move(migration));
}

void ModuleRegistry::eventType(const std::string& type, const std::string& description) {
  parts_.events.declare(EventType{type, description, module_});
}

void ModuleRegistry::recordType(const std::string& type, RecordType record) {
  parts_.records.addType(type, module_, std::move(record));
}

void ModuleRegistry::guardDeletion(const std::string& type, RecordDeletionGuard guard) {
  parts_.records.addGuard(type, std::move(guard));
}

void ModuleRegistry::onRecordDeleted(const std::string& type, RecordDeleted reaction) {
  parts_.records.addReaction(type, std::move(reaction));
}

void ModuleRegistry::augment(const std::string& type, RecordAugment augment) {
  parts_.records.addAugment(type, std::move(augment));
}

void ModuleRegistry::onEvent(EventListener listener) {
  parts_.events.listen(std::move(listener));
}

JobHandle ModuleRegistry::job(Job job) {
  job.name = module_ + "." + job.name;
  return parts_.jobs.add(std::move(job));
}

void ModuleRegistry::describe(const std::string& method, const std::string& path, RouteDoc doc) {
  parts_.router.describe(method, "/v1" + path, std::move(doc), module_);
}

void ModuleRegistry::schema(const std::string& name, Json schema) {
  parts_.schemas.add(name, std::move(schema), module_);
}

void ModuleRegistry::batch(const std::string& collectionPath, BatchSpec spec) {
  registerBatchRoute(parts_.router, "/v1" + collectionPath, std::move(spec), parts_.db, module_);
}

void ModuleRegistry::metrics(std::vector<MetricFamily> families, MetricCollector collect) {
  if (parts_.metrics) parts_.metrics->add(module_, std::move(families), std::move(collect));
}

MigrationSet ModuleRegistry::migrations() const {
  MigrationSet set{module_, migrations_};
  std::sort(set.migrations.begin(), set.migrations.end(),
            [](const Migration& a, const Migration& b) { return a.id < b.id; });
  return set;
}

}  // namespace rapport::host
