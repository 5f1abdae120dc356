// starter: a Rapport module (rename it: README.md). It serves one resource,
// /v1/starter/items: create, list (search, pages, and the SDK's query
// language: filter, sort, fields, cursors; POST /v1/starter/items/search),
// read, change, delete, with the events starter.item.created|updated|deleted.
// rapport/resource.h lists what a field can declare; the SDK writes the table,
// its indexes and its search index from the declaration (`storage`).
#include "rapport/resource.h"
#include "rapport/sdk.h"

namespace {

class StarterModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "starter",
            .version = "0.1.0",
            .description = "starter: items (a module made from the Rapport SDK template).",
            .dependencies = {},
            .optional = {}};
  }

  // Registration happens here only; the host applies the migrations after
  // every module's setup, then starts the modules.
  void setup(rapport::Host& host, rapport::Registry& registry) override {
    rapport::Resource(
        {.path = "/starter/items",
         .table = "starter_items",
         .recordType = "starter_item",
         .idPrefix = "starter_",
         .eventPrefix = "starter.item",
         .noun = "Item",
         .fields = {{.name = "name", .required = true, .searchable = true, .sortable = true},
                    {.name = "notes", .maxLength = 10000}},
         // The id of the table's migration: a new declaration later (a field
         // added) needs a migration of its own, never a changed one.
         .storage = {.migration = "0001_starter_items", .recordColumn = "starter_item_id"}})
        .install(host, registry);
  }
};

}  // namespace

RAPPORT_MODULE(StarterModule, "starter", "0.1.0")
