// deals: the opportunities a company works on, in pipeline stages
// (docs/modules/deals.md). This file is the module's table of contents; the
// record itself is a declaration of the record engine (DealsResource.cpp),
// which serves /crm/deals (list, search, create, get, update, delete, batch),
// the stage, win, lose and reopen actions, and, while their modules are
// enabled, a contact's and a CRM company's deals; emits crm.deal.created,
// updated, stage_changed, won, lost and deleted; owns the record type
// "deal"; and unlinks the deals of a deleted contact or CRM company. The
// module adds what pipelines see of their deals: counters and guards.
#include "DealsResource.h"
#include "DealsStore.h"
#include "DealsTables.h"
#include "rapport/sdk.h"

namespace deals {
namespace {

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
    for (rapport::Migration& migration : deals::migrations()) {
      registry.migration(std::move(migration));
    }
    rapport::Resource(dealsSpec(host)).install(host, registry);

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
  }
};

}  // namespace
}  // namespace deals

RAPPORT_MODULE(deals::DealsModule, "deals", "1.0.0")
