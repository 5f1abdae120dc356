// companies: the organisations a company works with, its "CRM companies"
// (docs/modules/companies.md). This file is the module's table of contents;
// the record itself is a declaration of the record engine
// (CompaniesResource.cpp), which serves /crm/companies (list, search,
// create, get, update, delete, batch), stores crm_companies with its
// indexes, search and tag tables, emits crm.company.created|updated|deleted
// and owns the record type "company". Other modules link to it through the
// record directory (lockForReference, unlinking in onRecordDeleted).
#include "CompaniesResource.h"
#include "rapport/sdk.h"

namespace companies {
namespace {

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
    rapport::Resource(companiesSpec()).install(host, registry);
  }
};

}  // namespace
}  // namespace companies

RAPPORT_MODULE(companies::CompaniesModule, "companies", "1.0.0")
