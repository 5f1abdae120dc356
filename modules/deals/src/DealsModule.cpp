// deals: the opportunities a company works on, each in a stage of a pipeline
// (docs/modules/deals.md). This file is the module's table of contents: what
// it is, what it stores, the events it emits, the record type it owns, what it
// does about other modules' records and the routes it serves.
#include <memory>

#include "DealsApiDoc.h"
#include "DealsJson.h"
#include "DealsQuery.h"
#include "DealsRoutes.h"
#include "DealsStore.h"
#include "DealsTables.h"
#include "rapport/sdk.h"

namespace deals {
namespace {

using rapport::Request;

class DealsModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "deals",
            .version = "1.0.0",
            .description = "Deals: the opportunities a company works on, in pipeline stages.",
            .dependencies = {"pipelines"},
            .optional = {"contacts", "companies"}};
  }

  void setup(rapport::Host& host, rapport::Registry& registry) override {
    const Links links{.contacts = host.moduleEnabled("contacts"),
                      .companies = host.moduleEnabled("companies")};
    routes_ = std::make_unique<DealsRoutes>(host, links);

    for (rapport::Migration& migration : deals::migrations()) {
      registry.migration(std::move(migration));
    }
    registry.eventType("crm.deal.created", "A deal was created.");
    registry.eventType("crm.deal.updated", "A deal was updated or reopened.");
    registry.eventType("crm.deal.stage_changed", "A deal moved to another stage.");
    registry.eventType("crm.deal.won", "A deal was marked won.");
    registry.eventType("crm.deal.lost", "A deal was marked lost.");
    registry.eventType("crm.deal.deleted", "A deal was deleted.");

    // Other modules (activities) check a deal through the record directory or
    // read it as GET shows it.
    registry.recordType(
        "deal",
        {.exists = &store::exists,
         .fetch = [](rapport::Queryable& db, const std::string& companyId, const std::string& id,
                     rapport::RecordLock lock) -> std::optional<rapport::Json> {
           const auto row = store::find(db, companyId, id, lock);
           if (!row) return std::nullopt;
           return dealJson(*row);
         },
         .path = "/crm/deals/{id}",
         .query = dealsQuery()});

    // Pipelines and stages: their counters come from deal_stage_totals, and
    // one that has deals (open or closed) may not be deleted (409).
    registry.augment("pipeline", &augmentPipelines);
    registry.augment("stage", &augmentStages);
    registry.guardDeletion(
        "stage", [](rapport::Tx& tx, const std::string& id) -> std::optional<std::string> {
          if (store::anyInStage(tx, id)) return "The stage has deals.";
          return std::nullopt;
        });
    registry.guardDeletion(
        "pipeline", [](rapport::Tx& tx, const std::string& id) -> std::optional<std::string> {
          if (store::anyInPipeline(tx, id)) return "The pipeline has deals.";
          return std::nullopt;
        });

    registry.route("GET", "/crm/deals", [this](const Request& r) { return routes_->list(r); });
    registry.route("POST", "/crm/deals/search",
                   [this](const Request& r) { return routes_->search(r); });
    registry.route("POST", "/crm/deals", [this](const Request& r) { return routes_->create(r); });
    registry.route("GET", "/crm/deals/{id}", [this](const Request& r) { return routes_->get(r); });
    registry.route("PATCH", "/crm/deals/{id}",
                   [this](const Request& r) { return routes_->update(r); });
    registry.route("DELETE", "/crm/deals/{id}",
                   [this](const Request& r) { return routes_->remove(r); });
    registry.route("PATCH", "/crm/deals/{id}/stage",
                   [this](const Request& r) { return routes_->moveStage(r); });
    registry.route("POST", "/crm/deals/{id}/win",
                   [this](const Request& r) { return routes_->win(r); });
    registry.route("POST", "/crm/deals/{id}/lose",
                   [this](const Request& r) { return routes_->lose(r); });
    registry.route("POST", "/crm/deals/{id}/reopen",
                   [this](const Request& r) { return routes_->reopen(r); });

    // Links to contacts and CRM companies exist only while their module is
    // enabled. A deleted contact or company leaves its deals unlinked (no
    // deal events).
    if (links.contacts) {
      registry.route("GET", "/crm/contacts/{id}/deals",
                     [this](const Request& r) { return routes_->listOfContact(r); });
      registry.onRecordDeleted("contact", [](rapport::Tx& tx, const std::string& id) {
        store::unlinkContact(tx, id, rapport::nowMicros());
      });
    }
    if (links.companies) {
      registry.route("GET", "/crm/companies/{id}/deals",
                     [this](const Request& r) { return routes_->listOfCompany(r); });
      registry.onRecordDeleted("company", [](rapport::Tx& tx, const std::string& id) {
        store::unlinkCompany(tx, id, rapport::nowMicros());
      });
    }
    describeDealsRoutes(registry, links);
    registry.batch("/crm/deals", {});
  }

 private:
  std::unique_ptr<DealsRoutes> routes_;  // used by the route handlers until stop()
};

}  // namespace
}  // namespace deals

RAPPORT_MODULE(deals::DealsModule, "deals", "1.0.0")
