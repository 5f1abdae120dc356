// pipelines: the sales pipelines of a company and their ordered stages
// (docs/modules/pipelines.md). This file is the module's table of contents:
// what it is, what it stores, the record types it owns and the routes it
// serves. It emits no events (the API defines none for pipelines).
#include <memory>

#include "PipelinesApiDoc.h"
#include "PipelinesJson.h"
#include "PipelinesQuery.h"
#include "PipelinesRoutes.h"
#include "PipelinesStore.h"
#include "PipelinesTables.h"
#include "rapport/sdk.h"

namespace pipelines {
namespace {

using rapport::Queryable;
using rapport::RecordLock;
using rapport::Request;

class PipelinesModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "pipelines",
            .version = "1.0.0",
            .description = "Pipelines: the sales pipelines of a company and their stages.",
            .dependencies = {},
            .optional = {}};
  }

  void setup(rapport::Host& host, rapport::Registry& registry) override {
    routes_ = std::make_unique<PipelinesRoutes>(host);

    for (rapport::Migration& migration : pipelines::migrations()) {
      registry.migration(std::move(migration));
    }

    // Other modules (deals) check pipelines and stages through the record
    // directory (exists; key-share-locked on PostgreSQL for a reference about
    // to be written) and read them with fetch: the pipeline as GET shows it,
    // the stage as GET .../stages/{stage_id} shows it, counters left at 0 (the
    // deals module's augments add them). docs/modules/pipelines.md, "Read by
    // other modules". Both paths make them conditional (ETag, If-Match): the
    // host tags what fetch and the augments show, which is what GET shows.
    registry.recordType(
        "pipeline", {.exists = &store::pipelineExists,
                     .fetch = [](Queryable& db, const std::string& companyId, const std::string& id,
                                 RecordLock lock) -> std::optional<rapport::Json> {
                       const auto row = store::findPipeline(db, companyId, id, lock);
                       if (!row) return std::nullopt;
                       rapport::Result rows;
                       rows.rows.push_back(*row);
                       return pipelinesJson(rows, store::stagesOf(db, companyId, {id})).front();
                     },
                     .path = "/crm/pipelines/{id}",
                     .query = pipelinesQuery(),
                     .scope = "pipelines"});
    registry.recordType(
        "stage", {.exists = &store::stageExists,
                  .fetch = [](Queryable& db, const std::string& companyId, const std::string& id,
                              RecordLock lock) -> std::optional<rapport::Json> {
                    const auto row = store::findStage(db, companyId, id, lock);
                    if (!row) return std::nullopt;
                    return stageJson(*row);
                  },
                  .path = "/crm/pipelines/{id}/stages/{stage_id}",
                  .query = stagesQuery(),
                  .scope = "pipelines"});

    // Reads are open to every member; changes need owner or admin (403). An
    // API key needs pipelines:read to read, pipelines:write to change.
    const rapport::RouteOptions readers{.scope = "pipelines"};
    const rapport::RouteOptions managers{.roles = {rapport::Role::Owner, rapport::Role::Admin},
                                         .scope = "pipelines"};
    registry.route(
        "GET", "/crm/pipelines", [this](const Request& r) { return routes_->list(r); }, readers);
    registry.route(
        "POST", "/crm/pipelines", [this](const Request& r) { return routes_->create(r); },
        managers);
    registry.route(
        "GET", "/crm/pipelines/{id}", [this](const Request& r) { return routes_->get(r); },
        readers);
    registry.route(
        "PATCH", "/crm/pipelines/{id}", [this](const Request& r) { return routes_->update(r); },
        managers);
    registry.route(
        "DELETE", "/crm/pipelines/{id}", [this](const Request& r) { return routes_->remove(r); },
        managers);

    registry.route(
        "GET", "/crm/pipelines/{id}/stages",
        [this](const Request& r) { return routes_->stages(r); }, readers);
    registry.route(
        "POST", "/crm/pipelines/{id}/stages",
        [this](const Request& r) { return routes_->createStage(r); }, managers);
    // A literal segment wins over a parameter (host Router): reorder is not a stage id.
    registry.route(
        "PATCH", "/crm/pipelines/{id}/stages/reorder",
        [this](const Request& r) { return routes_->reorder(r); }, managers);
    registry.route(
        "GET", "/crm/pipelines/{id}/stages/{stage_id}",
        [this](const Request& r) { return routes_->getStage(r); }, readers);
    registry.route(
        "PATCH", "/crm/pipelines/{id}/stages/{stage_id}",
        [this](const Request& r) { return routes_->updateStage(r); }, managers);
    registry.route(
        "DELETE", "/crm/pipelines/{id}/stages/{stage_id}",
        [this](const Request& r) { return routes_->removeStage(r); }, managers);
    describePipelinesRoutes(registry);
  }

 private:
  std::unique_ptr<PipelinesRoutes> routes_;  // used by the route handlers until stop()
};

}  // namespace
}  // namespace pipelines

RAPPORT_MODULE(pipelines::PipelinesModule, "pipelines", "1.0.0")
