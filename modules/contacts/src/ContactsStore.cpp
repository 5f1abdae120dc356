// SQL of the contacts module. Statements use "?" on both engines; the only
// dialect branches are the row lock and the search (see whereOf).
#include "ContactsStore.h"

#include "rapport/json.h"
#include "rapport/validation.h"

namespace contacts::store {
namespace {

using rapport::Dialect;
using rapport::Json;
using rapport::Params;
using rapport::Queryable;
using rapport::Tx;

// The columns every read returns, in the order ContactsJson shows them.
const std::string kColumns =
    "id, name, email, phone, job_title, crm_company_id, owner_id, tags, notes, created_at, "
    "updated_at";

// Shortest term the trigram index can match; shorter ones fall back to LIKE.
constexpr std::size_t kTrigram = 3;

std::string tagsText(const std::vector<std::string>& tags) {
  Json array = Json::array();
  for (const std::string& tag : tags) array.push(tag);
  return array.dump();
}

void writeTags(Tx& tx, const std::string& id, const std::vector<std::string>& tags) {
  tx.exec("DELETE FROM contact_tags WHERE company_id = ? AND contact_id = ?", {tx.companyId(), id});
  for (const std::string& tag : tags) {
    tx.exec("INSERT INTO contact_tags (company_id, contact_id, tag_lower) VALUES (?, ?, ?)",
            {tx.companyId(), id, rapport::toLower(tag)});
  }
}

// "%term%" for LIKE ... ESCAPE '\': the term's own % _ and \ match literally.
std::string likePattern(const std::string& term) {
  std::string out = "%";
  for (char c : term) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

// The term as one FTS5 string: a phrase, so it matches as a substring.
std::string ftsPhrase(const std::string& term) {
  std::string out = "\"";
  for (char c : term) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

// A WHERE clause and its parameters, shared by the page and the count.
struct Where {
  std::string sql;
  Params params;

  void add(const std::string& condition, std::initializer_list<rapport::Value> values) {
    sql += " AND " + condition;
    params.insert(params.end(), values);
  }
};

// Every filter is served by an index (docs/modules/contacts.md shows the plans):
//   search, PostgreSQL: the trigram GIN index on search_text (LIKE '%term%');
//   search, SQLite: the FTS5 trigram table contacts_search for terms of 3
//     characters or more; shorter terms scan the tenant's rows with LIKE;
//   tag: contact_tags (company_id, tag_lower); company_id and owner_id: their indexes.
Where whereOf(Dialect dialect, const std::string& tenant, const ContactFilter& filter) {
  const bool fts = dialect == Dialect::SQLite && filter.search &&
                   rapport::utf8Length(*filter.search) >= kTrigram;
  // A full-text match or a tag lookup yields a short list of rows, and that
  // list must drive the query, so the work grows with the matches rather than
  // with the tenant's contacts. Without statistics SQLite would rather walk the
  // tenant's index in order and test every row: the unary + hides it.
  const bool narrowed = dialect == Dialect::SQLite && (fts || filter.tag);
  Where where{narrowed ? "+company_id = ?" : "company_id = ?", {tenant}};
  if (fts) {
    where.add("seq IN (SELECT rowid FROM contacts_search WHERE contacts_search MATCH ?)",
              {ftsPhrase(*filter.search)});
  } else if (filter.search) {
    where.add("search_text LIKE lower(?) ESCAPE '\\'", {likePattern(*filter.search)});
  }
  if (filter.tag) {
    where.add("id IN (SELECT contact_id FROM contact_tags WHERE company_id = ? AND tag_lower = ?)",
              {tenant, rapport::toLower(*filter.tag)});
  }
  if (filter.companyId) where.add("crm_company_id = ?", {*filter.companyId});
  if (filter.ownerId) where.add("owner_id = ?", {*filter.ownerId});
  return where;
}

}  // namespace

const std::map<std::string, std::string>& sortColumns() {
  // Names sort without regard to case; contacts without e-mail sort as "".
  static const std::map<std::string, std::string> columns = {{"name", "lower(name)"},
                                                             {"email", "coalesce(email, '')"},
                                                             {"created_at", "created_at"},
                                                             {"updated_at", "updated_at"}};
  return columns;
}

rapport::Sort defaultSort() {
  return {.column = "created_at", .descending = true};
}

std::optional<rapport::Row> find(Queryable& db, const std::string& tenant, const std::string& id) {
  rapport::Result found = db.query(
      "SELECT " + kColumns + " FROM contacts WHERE company_id = ? AND id = ?", {tenant, id});
  if (found.empty()) return std::nullopt;
  return found.front();
}

std::optional<rapport::Row> findForUpdate(Tx& tx, const std::string& id) {
  const char* lock = tx.dialect() == Dialect::PostgreSQL ? " FOR UPDATE" : "";
  rapport::Result found =
      tx.query("SELECT " + kColumns + " FROM contacts WHERE company_id = ? AND id = ?" + lock,
               {tx.companyId(), id});
  if (found.empty()) return std::nullopt;
  return found.front();
}

bool exists(Queryable& db, const std::string& tenant, const std::string& id) {
  return !db.query("SELECT 1 FROM contacts WHERE company_id = ? AND id = ?", {tenant, id}).empty();
}

Contact fromRow(const rapport::Row& row) {
  Contact contact{.name = row.str("name"),
                  .email = row.optStr("email"),
                  .phone = row.optStr("phone"),
                  .jobTitle = row.optStr("job_title"),
                  .crmCompanyId = row.optStr("crm_company_id"),
                  .ownerId = row.optStr("owner_id"),
                  .tags = {},
                  .notes = row.optStr("notes")};
  const Json tags = Json::parse(row.str("tags"));
  for (const Json& tag : tags.asArray()) contact.tags.push_back(tag.asString());
  return contact;
}

void insert(Tx& tx, const std::string& id, const Contact& c, std::int64_t now) {
  tx.exec(
      "INSERT INTO contacts (id, company_id, name, email, phone, job_title, crm_company_id, "
      "owner_id, tags, notes, created_at, updated_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {id, tx.companyId(), c.name, c.email, c.phone, c.jobTitle, c.crmCompanyId, c.ownerId,
       tagsText(c.tags), c.notes, now, now});
  writeTags(tx, id, c.tags);
}

void update(Tx& tx, const std::string& id, const Contact& c, std::int64_t now) {
  // crm_company_id and owner_id are set on create only (and cleared by unlinkCompany).
  tx.exec(
      "UPDATE contacts SET name = ?, email = ?, phone = ?, job_title = ?, tags = ?, notes = ?, "
      "updated_at = ? WHERE company_id = ? AND id = ?",
      {c.name, c.email, c.phone, c.jobTitle, tagsText(c.tags), c.notes, now, tx.companyId(), id});
  writeTags(tx, id, c.tags);
}

bool remove(Tx& tx, const std::string& id) {
  tx.exec("DELETE FROM contact_tags WHERE company_id = ? AND contact_id = ?", {tx.companyId(), id});
  return tx.exec("DELETE FROM contacts WHERE company_id = ? AND id = ?", {tx.companyId(), id}) > 0;
}

void unlinkCompany(Tx& tx, const std::string& crmCompanyId, std::int64_t now) {
  tx.exec(
      "UPDATE contacts SET crm_company_id = NULL, updated_at = ? "
      "WHERE company_id = ? AND crm_company_id = ?",
      {now, tx.companyId(), crmCompanyId});
}

ContactPage list(Queryable& db, const std::string& tenant, const ContactFilter& filter,
                 const rapport::Sort& sort, const rapport::PageRequest& page) {
  const Where where = whereOf(db.dialect(), tenant, filter);
  Params pageParams = where.params;
  pageParams.insert(pageParams.end(), {page.perPage, page.offset()});
  ContactPage out;
  out.rows = db.query("SELECT " + kColumns + " FROM contacts WHERE " + where.sql + " " +
                          rapport::orderByClause(sort) + " LIMIT ? OFFSET ?",
                      pageParams);
  out.total = db.query("SELECT COUNT(*) AS total FROM contacts WHERE " + where.sql, where.params)
                  .front()
                  .i64("total");
  return out;
}

}  // namespace contacts::store
