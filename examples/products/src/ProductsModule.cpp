// products: a company's product catalogue at /v1/crm/products, as one declaration
// (rapport/resource.h): CRUD routes, list search, filter, sorts and pages, the events
// crm.product.created|updated|deleted and the record type "product". The table is in
// migrations/ (one file per engine); the SDK makes its per-company counts.
#include "products_migrations.gen.h"
#include "rapport/resource.h"
#include "rapport/sdk.h"

namespace {

using enum rapport::FieldKind;

// Built in setup(), so loading the module runs none of its code.
rapport::ResourceSpec productsResource() {
  return {.path = "/crm/products",
          .table = "products",
          .recordType = "product",
          .idPrefix = "prod_",
          .eventPrefix = "crm.product",
          .noun = "Product",
          .fields = {{.name = "name", .required = true, .searchable = true, .sortable = true},
                     {.name = "sku", .maxLength = 64, .unique = true, .searchable = true},
                     {.name = "description", .maxLength = 10000},
                     {.name = "price", .kind = Money, .defaultValue = 0, .sortable = true},
                     {.name = "currency", .kind = Currency, .defaultValue = "USD"},
                     {.name = "active", .kind = Boolean, .defaultValue = true, .filterable = true}},
          // Anyone in the company reads the catalogue; its owners and admins keep it.
          .writeRoles = {rapport::Role::Owner, rapport::Role::Admin},
          .countsTable = "product_counts"};
}

class ProductsModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "products",
            .version = "1.0.0",
            .description = "Products: the catalogue a company sells.",
            .dependencies = {},
            .optional = {}};
  }

  void setup(rapport::Host& host, rapport::Registry& registry) override {
    for (rapport::Migration& migration : rapport_generated::products::migrations()) {
      registry.migration(std::move(migration));
    }
    // The per-company count the unfiltered list reads its total from.
    registry.migration(rapport::listingTablesMigration(
        {.records = "products", .recordColumn = "product_id", .tags = false}, "0002_counts"));
    rapport::Resource(productsResource()).install(host, registry);
  }
};

}  // namespace

RAPPORT_MODULE(ProductsModule, "products", "1.0.0")
