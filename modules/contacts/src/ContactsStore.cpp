// SQL of the contacts module. Statements use "?" on both engines, with no
// dialect branch (row locks come from rapport::selectRecord, the search's
// branch from rapport::addTextSearch).
#include "ContactsStore.h"

#include "rapport/list.h"
#include "rapport/record_lookup.h"
#include "rapport/search.h"
#include "rapport/tags.h"
#include "rapport/validation.h"
#include "rapport/where.h"

namespace contacts::store {
namespace {

using rapport::Dialect;
using rapport::Queryable;
using rapport::Tx;

// The columns every read returns, in the order ContactsJson shows them.
const std::string kColumns =
    "id, name, email, phone, job_title, crm_company_id, owner_id, tags, notes, created_at, "
    "updated_at";

// The tag filter's table: one row per tag of a contact.
constexpr rapport::TagTable kTags{"contact_tags", "contact_id", "contacts", "contact_tag_counts"};

}  // namespace

const std::string& columns() {
  return kColumns;
}

// Every filter is served by an index (docs/modules/contacts.md shows the plans):
// the search by the trigram index on search_text (rapport::addTextSearch), the
// tag by contact_tags (company_id, tag_lower), company_id and owner_id by theirs.
rapport::WhereClause whereOf(Dialect dialect, const std::string& tenant,
                             const ContactFilter& filter) {
  rapport::WhereClause where(dialect, tenant);
  if (filter.search) rapport::addTextSearch(where, "contacts_search", *filter.search);
  if (filter.tag) rapport::addTagFilter(where, kTags, *filter.tag);
  if (filter.companyId) where.add("crm_company_id = ?", {*filter.companyId});
  if (filter.ownerId) where.add("owner_id = ?", {*filter.ownerId});
  return where;
}

std::optional<rapport::Row> find(Queryable& db, const std::string& tenant, const std::string& id,
                                 rapport::RecordLock lock) {
  return rapport::selectRecord(db, kColumns, "contacts", tenant, id, rapport::rowLockFor(lock));
}

std::optional<rapport::Row> findForUpdate(Tx& tx, const std::string& id) {
  return rapport::selectRecord(tx, kColumns, "contacts", tx.companyId(), id,
                               rapport::RowLock::Update);
}

bool exists(Queryable& db, const std::string& tenant, const std::string& id,
            rapport::RecordLock lock) {
  return rapport::selectRecord(db, "1", "contacts", tenant, id, rapport::rowLockFor(lock))
      .has_value();
}

std::optional<std::string> findIdByEmail(Queryable& db, const std::string& tenant,
                                         const rapport::Json& data) {
  rapport::Validator v(data);
  const auto email = v.email("email", true);
  v.check();
  const auto found = db.query("SELECT id FROM contacts WHERE company_id = ? AND email = ?",
                              {tenant, *email.value});
  if (found.empty()) return std::nullopt;
  return found.front().str("id");
}

Contact fromRow(const rapport::Row& row) {
  return Contact{.name = row.str("name"),
                 .email = row.optStr("email"),
                 .phone = row.optStr("phone"),
                 .jobTitle = row.optStr("job_title"),
                 .crmCompanyId = row.optStr("crm_company_id"),
                 .ownerId = row.optStr("owner_id"),
                 .tags = rapport::tagsFromJsonText(row.str("tags")),
                 .notes = row.optStr("notes")};
}

rapport::Row insert(Tx& tx, const std::string& id, const Contact& c, std::int64_t now) {
  // RETURNING: the stored row without a second statement (a round trip on
  // PostgreSQL).
  rapport::Result stored = tx.query(
      "INSERT INTO contacts (id, company_id, name, email, phone, job_title, crm_company_id, "
      "owner_id, tags, notes, created_at, updated_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING " +
          kColumns,
      {id, tx.companyId(), c.name, c.email, c.phone, c.jobTitle, c.crmCompanyId, c.ownerId,
       rapport::tagsToJsonText(c.tags), c.notes, now, now});
  rapport::replaceTagRows(tx, kTags, id, c.tags);
  return stored.front();
}

void update(Tx& tx, const std::string& id, const Contact& c,
            const std::vector<std::string>& tagsBefore, std::int64_t now) {
  // crm_company_id and owner_id are set on create only (and cleared by unlinkCompany).
  tx.exec(
      "UPDATE contacts SET name = ?, email = ?, phone = ?, job_title = ?, tags = ?, notes = ?, "
      "updated_at = ? WHERE company_id = ? AND id = ?",
      {c.name, c.email, c.phone, c.jobTitle, rapport::tagsToJsonText(c.tags), c.notes, now,
       tx.companyId(), id});
  if (c.tags != tagsBefore) rapport::replaceTagRows(tx, kTags, id, c.tags);
}

bool remove(Tx& tx, const std::string& id) {
  rapport::deleteTagRows(tx, kTags, id);
  return tx.exec("DELETE FROM contacts WHERE company_id = ? AND id = ?", {tx.companyId(), id}) > 0;
}

void unlinkCompany(Tx& tx, const std::string& crmCompanyId, std::int64_t now) {
  tx.exec(
      "UPDATE contacts SET crm_company_id = NULL, updated_at = ? "
      "WHERE company_id = ? AND crm_company_id = ?",
      {now, tx.companyId(), crmCompanyId});
}

}  // namespace contacts::store
