#include "CompaniesRoutes.h"

#include "CompaniesJson.h"
#include "CompaniesQuery.h"
#include "CompaniesValidation.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/list.h"
#include "rapport/pagination.h"
#include "rapport/request_rules.h"
#include "rapport/time.h"

namespace companies {
namespace {

using rapport::Error;
using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::Tx;

const char* const kNotFound = "Company not found.";
// What a write answers (409) when the unique index on (company_id, document) refuses it.
const char* const kDuplicateDocument = "A company with this document already exists.";

// Applies the fields a PATCH sent; false when it sent none. Validation
// refuses a null or blank name, so name is either absent or a value.
bool merge(const CompanyInput& in, Company& company) {
  bool applied = false;
  applied |= in.name.applyTo(company.name);
  applied |= in.document.applyTo(company.document);
  applied |= in.industry.applyTo(company.industry);
  applied |= in.website.applyTo(company.website);
  applied |= in.size.applyTo(company.size);
  applied |= in.annualRevenue.applyTo(company.annualRevenue);
  applied |= in.phone.applyTo(company.phone);
  applied |= in.notes.applyTo(company.notes);
  applied |= in.tags.applyTo(company.tags);  // null clears
  return applied;
}

}  // namespace

CompaniesRoutes::CompaniesRoutes(rapport::Host& host) : host_(host) {}

Response CompaniesRoutes::list(const Request& request) {
  const CompanyFilter filter = validateFilter(request);
  const rapport::RecordQuery& query = companiesQuery();
  return query.answer(host_, query.read(request),
                      store::whereOf(host_.db().dialect(), request.identity.companyId, filter),
                      store::columns(), companyJson);
}

Response CompaniesRoutes::search(const Request& request) {
  return companiesQuery().search(host_, request, store::columns(), companyJson);
}

Response CompaniesRoutes::create(const Request& request) {
  const CompanyInput in = validateCompany(request.bodyObject(), Mode::Create);
  const Company company{.name = *in.name.value,
                        .document = in.document.value,
                        .industry = in.industry.value,
                        .website = in.website.value,
                        .size = in.size.value,
                        .annualRevenue = in.annualRevenue.value,
                        .phone = in.phone.value,
                        .tags = in.tags.valueOr({}),
                        .notes = in.notes.value};
  const std::string id = rapport::newId("comp_");
  Json created;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    rapport::conflictOnDuplicate(kDuplicateDocument,
                                 [&] { store::insert(tx, id, company, rapport::nowMicros()); });
    created = companyJson(*store::find(tx, tx.companyId(), id));
    tx.emit("crm.company.created", created);
  });
  return Response::created(created, "Company created.");
}

Response CompaniesRoutes::get(const Request& request) {
  rapport::Queryable& db = host_.db();
  const auto row = store::find(db, request.identity.companyId, request.param("id"));
  if (!row) throw Error::notFound(kNotFound);
  return Response::ok(companyJson(*row));
}

Response CompaniesRoutes::update(const Request& request) {
  const CompanyInput in = validateCompany(request.bodyObject(), Mode::Update);
  const std::string& id = request.param("id");
  Json updated;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = store::findForUpdate(tx, id);
    if (!row) throw Error::notFound(kNotFound);
    Company company = store::fromRow(*row);
    const std::vector<std::string> tagsBefore = company.tags;
    if (!merge(in, company)) {  // nothing to change: no write, no event
      updated = companyJson(*row);
      return;
    }
    rapport::conflictOnDuplicate(kDuplicateDocument, [&] {
      store::update(tx, id, company, tagsBefore, rapport::nowMicros());
    });
    updated = companyJson(*store::find(tx, tx.companyId(), id));
    tx.emit("crm.company.updated", updated);
  });
  return Response::ok(updated, "Company updated.");
}

Response CompaniesRoutes::remove(const Request& request) {
  const std::string& id = request.param("id");
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (!store::remove(tx, id)) throw Error::notFound(kNotFound);
    host_.records().deleted(tx, "company", id);  // contacts, deals, activities unlink it
    tx.emit("crm.company.deleted", Json::object({{"id", id}}));
  });
  return Response::ok(Json::object({{"id", id}}), "Company deleted.");
}

}  // namespace companies
