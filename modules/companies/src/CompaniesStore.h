// SQL of the companies module, and nothing else: every statement filters on
// the tenant (company_id). Tables: crm_companies, crm_company_tags (the tag
// filter), crm_company_counts, crm_company_tag_counts and, on SQLite,
// crm_companies_search (the full-text index); see migrations/ and
// CompaniesTables.h (the tag and count tables are the SDK's listing tables).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/json.h"
#include "rapport/list.h"
#include "rapport/pagination.h"
#include "rapport/records.h"

namespace companies {

// The stored fields of a CRM company: what POST sets and PATCH merges into.
struct Company {
  std::string name;
  std::optional<std::string> document;
  std::optional<std::string> industry;
  std::optional<std::string> website;
  std::optional<std::string> size;
  std::optional<std::int64_t> annualRevenue;  // cents
  std::optional<std::string> phone;
  std::vector<std::string> tags;
  std::optional<std::string> notes;
};

// Filters of the list; they combine with AND. Values are trimmed, non-blank.
struct CompanyFilter {
  std::optional<std::string> search;    // substring of name, document or website, any case
  std::optional<std::string> tag;       // any case
  std::optional<std::string> industry;  // exact, any case
  std::optional<std::string> size;      // exact, any case
};

namespace store {

// The columns every read returns, in the order the JSON shows them.
const std::string& columns();
// The list's own parameters as the WHERE clause the record query engine
// adds the request's filter to.
rapport::WhereClause whereOf(rapport::Dialect dialect, const std::string& tenant,
                             const CompanyFilter& filter);

// The company's row, or nullopt when `id` is not a CRM company of `tenant`.
// With RecordLock::Share (the record directory's fetch for a reference about
// to be written) the row is key-share-locked on PostgreSQL in the same read.
std::optional<rapport::Row> find(rapport::Queryable& db, const std::string& tenant,
                                 const std::string& id,
                                 rapport::RecordLock lock = rapport::RecordLock::None);
// The same inside a write transaction, locking the row until commit (on
// SQLite the transaction already holds the write lock).
std::optional<rapport::Row> findForUpdate(rapport::Tx& tx, const std::string& id);
// True when `id` is a CRM company of `tenant`: the record directory's check
// of "company". With RecordLock::Share (a contact's or deal's create linking
// to it, through RecordDirectory::lockForReference) it key-share-locks the
// row on PostgreSQL until that transaction ends, so a concurrent delete of
// the company waits for the commit and its onRecordDeleted reactions then
// see, and unlink, the new link; a delete that came first makes this wait
// and answer false. SQLite serialises writers.
bool exists(rapport::Queryable& db, const std::string& tenant, const std::string& id,
            rapport::RecordLock lock = rapport::RecordLock::None);
// The batch upsert's match (rapport::UpsertMatch): the id of `tenant`'s CRM
// company with the document of `data` (trimmed, as stored), or nullopt.
// Throws rapport::Error 422 on "document" when `data` has none.
std::optional<std::string> findIdByDocument(rapport::Queryable& db, const std::string& tenant,
                                            const rapport::Json& data);
// The stored fields of a row returned by find().
Company fromRow(const rapport::Row& row);

// Write the whole record (and its tags). A duplicate document throws a
// DbError with isUniqueViolation().
void insert(rapport::Tx& tx, const std::string& id, const Company& company, std::int64_t now);
// update() rewrites the tag rows only when the tags differ from `tagsBefore`
// (each tag row change also updates the tag counts).
void update(rapport::Tx& tx, const std::string& id, const Company& company,
            const std::vector<std::string>& tagsBefore, std::int64_t now);
// False when there was no such company.
bool remove(rapport::Tx& tx, const std::string& id);

}  // namespace store
}  // namespace companies
