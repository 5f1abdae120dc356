// companies: the organisations a company works with, its "CRM companies"
// (docs/modules/companies.md). This file is the module's table of contents:
// what it is, what it stores, the events it emits, the record type it owns
// and the routes it serves.
#include <memory>

#include "CompaniesApiDoc.h"
#include "CompaniesJson.h"
#include "CompaniesQuery.h"
#include "CompaniesRoutes.h"
#include "CompaniesStore.h"
#include "CompaniesTables.h"
#include "rapport/sdk.h"

namespace companies {
namespace {

using rapport::Request;

class CompaniesModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "companies",
            .version = "1.0.0",
            .description = "CRM companies: the organisations a company works with.",
            .dependencies = {},
            .optional = {}};
  }

  void setup(rapport::Host& host, rapport::Registry& registry) override {
    routes_ = std::make_unique<CompaniesRoutes>(host);

    for (rapport::Migration& migration : companies::migrations()) {
      registry.migration(std::move(migration));
    }
    registry.eventType("crm.company.created", "A CRM company was created.");
    registry.eventType("crm.company.updated", "A CRM company was updated.");
    registry.eventType("crm.company.deleted", "A CRM company was deleted.");
    // Other modules link to CRM companies through the record directory: they
    // check a link with lockForReference (store::exists key-share-locks the
    // company on PostgreSQL, so a delete racing the link waits, then unlinks
    // it) and unlink in onRecordDeleted("company"). fetch reads the company
    // as GET shows it.
    registry.recordType(
        "company",
        {.exists = &store::exists,
         .fetch = [](rapport::Queryable& db, const std::string& companyId, const std::string& id,
                     rapport::RecordLock lock) -> std::optional<rapport::Json> {
           const auto row = store::find(db, companyId, id, lock);
           if (!row) return std::nullopt;
           return companyJson(*row);
         },
         .path = "/crm/companies/{id}",
         .query = companiesQuery()});

    registry.route("GET", "/crm/companies", [this](const Request& r) { return routes_->list(r); });
    registry.route("POST", "/crm/companies/search",
                   [this](const Request& r) { return routes_->search(r); });
    registry.route("POST", "/crm/companies",
                   [this](const Request& r) { return routes_->create(r); });
    registry.route("GET", "/crm/companies/{id}",
                   [this](const Request& r) { return routes_->get(r); });
    registry.route("PATCH", "/crm/companies/{id}",
                   [this](const Request& r) { return routes_->update(r); });
    registry.route("DELETE", "/crm/companies/{id}",
                   [this](const Request& r) { return routes_->remove(r); });
    describeCompaniesRoutes(registry);
    registry.batch("/crm/companies", {.upsertBy = "document", .match = &store::findIdByDocument});
  }

 private:
  std::unique_ptr<CompaniesRoutes> routes_;  // used by the route handlers until stop()
};

}  // namespace
}  // namespace companies

RAPPORT_MODULE(companies::CompaniesModule, "companies", "1.0.0")
