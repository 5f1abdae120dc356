// SQL of the companies module. Statements use "?" on both engines, with no
// dialect branch (row locks come from rapport::selectRecord, the search's
// branch from rapport::addTextSearch).
#include "CompaniesStore.h"

#include "rapport/list.h"
#include "rapport/record_lookup.h"
#include "rapport/request_rules.h"
#include "rapport/search.h"
#include "rapport/tags.h"
#include "rapport/validation.h"
#include "rapport/where.h"

namespace companies::store {
namespace {

using rapport::Dialect;
using rapport::Queryable;
using rapport::Tx;

// The columns every read returns, in the order CompaniesJson shows them.
const std::string kColumns =
    "id, name, document, industry, website, size, annual_revenue, phone, tags, notes, "
    "created_at, updated_at";

// The tag filter's table: one row per tag of a CRM company.
constexpr rapport::TagTable kTags{"crm_company_tags", "crm_company_id", "crm_companies",
                                  "crm_company_tag_counts"};

}  // namespace

const std::string& columns() {
  return kColumns;
}

// Every filter is served by an index (docs/modules/companies.md shows the plans):
// the search by the trigram index on search_text (rapport::addTextSearch), the
// tag by crm_company_tags (company_id, tag_lower), industry and size by
// (company_id, lower(column)).
rapport::WhereClause whereOf(Dialect dialect, const std::string& tenant,
                             const CompanyFilter& filter) {
  rapport::WhereClause where(dialect, tenant);
  if (filter.search) rapport::addTextSearch(where, "crm_companies_search", *filter.search);
  if (filter.tag) rapport::addTagFilter(where, kTags, *filter.tag);
  if (filter.industry) where.add("lower(industry) = lower(?)", {*filter.industry});
  if (filter.size) where.add("lower(size) = lower(?)", {*filter.size});
  return where;
}

std::optional<rapport::Row> find(Queryable& db, const std::string& tenant, const std::string& id,
                                 rapport::RecordLock lock) {
  return rapport::selectRecord(db, kColumns, "crm_companies", tenant, id,
                               rapport::rowLockFor(lock));
}

std::optional<rapport::Row> findForUpdate(Tx& tx, const std::string& id) {
  return rapport::selectRecord(tx, kColumns, "crm_companies", tx.companyId(), id,
                               rapport::RowLock::Update);
}

bool exists(Queryable& db, const std::string& tenant, const std::string& id,
            rapport::RecordLock lock) {
  return rapport::selectRecord(db, "1", "crm_companies", tenant, id, rapport::rowLockFor(lock))
      .has_value();
}

std::optional<std::string> findIdByDocument(Queryable& db, const std::string& tenant,
                                            const rapport::Json& data) {
  rapport::Validator v(data);
  // Read as POST reads it (CompaniesValidation): trimmed, blank as none.
  const auto document = rapport::optionalText(v, "document", 100);
  if (v.ok() && !document.value) v.fail("document", "The document field is required.");
  v.check();
  const auto found = db.query("SELECT id FROM crm_companies WHERE company_id = ? AND document = ?",
                              {tenant, *document.value});
  if (found.empty()) return std::nullopt;
  return found.front().str("id");
}

Company fromRow(const rapport::Row& row) {
  return Company{.name = row.str("name"),
                 .document = row.optStr("document"),
                 .industry = row.optStr("industry"),
                 .website = row.optStr("website"),
                 .size = row.optStr("size"),
                 .annualRevenue = row.optI64("annual_revenue"),
                 .phone = row.optStr("phone"),
                 .tags = rapport::tagsFromJsonText(row.str("tags")),
                 .notes = row.optStr("notes")};
}

void insert(Tx& tx, const std::string& id, const Company& c, std::int64_t now) {
  tx.exec(
      "INSERT INTO crm_companies (id, company_id, name, document, industry, website, size, "
      "annual_revenue, phone, tags, notes, created_at, updated_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {id, tx.companyId(), c.name, c.document, c.industry, c.website, c.size, c.annualRevenue,
       c.phone, rapport::tagsToJsonText(c.tags), c.notes, now, now});
  rapport::replaceTagRows(tx, kTags, id, c.tags);
}

void update(Tx& tx, const std::string& id, const Company& c,
            const std::vector<std::string>& tagsBefore, std::int64_t now) {
  tx.exec(
      "UPDATE crm_companies SET name = ?, document = ?, industry = ?, website = ?, size = ?, "
      "annual_revenue = ?, phone = ?, tags = ?, notes = ?, updated_at = ? "
      "WHERE company_id = ? AND id = ?",
      {c.name, c.document, c.industry, c.website, c.size, c.annualRevenue, c.phone,
       rapport::tagsToJsonText(c.tags), c.notes, now, tx.companyId(), id});
  if (c.tags != tagsBefore) rapport::replaceTagRows(tx, kTags, id, c.tags);
}

bool remove(Tx& tx, const std::string& id) {
  rapport::deleteTagRows(tx, kTags, id);
  return tx.exec("DELETE FROM crm_companies WHERE company_id = ? AND id = ?",
                 {tx.companyId(), id}) > 0;
}

}  // namespace companies::store
