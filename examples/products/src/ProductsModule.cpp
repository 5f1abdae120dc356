// products: a company's product catalogue at /v1/crm/products, as one declaration
// (rapport/resource.h): CRUD routes, list search, filter, sorts and pages, the events
// crm.product.created|updated|deleted and the record type "product". The SDK writes the
// table, its indexes, its search index and its per-company counts (`storage`).
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
          // The engine's migration stands for the two this module shipped by
          // hand before SDK 8 (its table, then its counts): a database that
          // has them records it without running it.
          .storage = {.migration = "0003_products",
                      .replaces = {"0001_products", "0002_counts"},
                      .recordColumn = "product_id"},
          .customFields = {.migration = "0004_products_custom_fields"},
          // API keys read it with products:read and change it with
          // products:write (rapport/scopes.h); the path's last segment too.
          .scope = "products"};
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
    rapport::Resource(productsResource()).install(host, registry);
  }
};

}  // namespace

RAPPORT_MODULE(ProductsModule, "products", "1.0.0")
