// SQL of the contacts module, and nothing else: every statement filters on
// the tenant (company_id). Tables: contacts, contact_tags (the tag filter),
// contact_counts, contact_tag_counts and, on SQLite, contacts_search (the
// full-text index); see migrations/ and ContactsTables.h (the tag and count
// tables are the SDK's listing tables).
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

namespace contacts {

// The stored fields of a contact: what POST sets and PATCH merges into.
struct Contact {
  std::string name;
  std::optional<std::string> email;  // lower-cased
  std::optional<std::string> phone;
  std::optional<std::string> jobTitle;
  std::optional<std::string> crmCompanyId;  // API field company_id
  std::optional<std::string> ownerId;
  std::vector<std::string> tags;
  std::optional<std::string> notes;
};

// Filters of the list; they combine with AND. Values are trimmed, non-blank.
struct ContactFilter {
  std::optional<std::string> search;     // substring of name, e-mail or phone, any case
  std::optional<std::string> tag;        // any case
  std::optional<std::string> companyId;  // the CRM company
  std::optional<std::string> ownerId;
};

namespace store {

// The columns every read returns, in the order ContactsJson shows them.
const std::string& columns();
// The list's own parameters (search, tag, company_id, owner_id) as the WHERE
// clause the record query engine adds the request's filter to.
rapport::WhereClause whereOf(rapport::Dialect dialect, const std::string& tenant,
                             const ContactFilter& filter);

// The contact's row, or nullopt when `id` is not a contact of `tenant`.
// With RecordLock::Share (the record directory's fetch for a reference about
// to be written) the row is key-share-locked on PostgreSQL in the same read.
std::optional<rapport::Row> find(rapport::Queryable& db, const std::string& tenant,
                                 const std::string& id,
                                 rapport::RecordLock lock = rapport::RecordLock::None);
// The same inside a write transaction, locking the row until commit (on
// SQLite the transaction already holds the write lock).
std::optional<rapport::Row> findForUpdate(rapport::Tx& tx, const std::string& id);
// True when `id` is a contact of `tenant`: the record directory's check of
// "contact". RecordLock::Share key-share-locks the row on PostgreSQL until
// the transaction ends (records.h), so a reference to it cannot dangle.
bool exists(rapport::Queryable& db, const std::string& tenant, const std::string& id,
            rapport::RecordLock lock = rapport::RecordLock::None);
// The batch upsert's match (rapport::UpsertMatch): the id of `tenant`'s
// contact with the e-mail of `data` (lower-cased, as stored), or nullopt.
// Throws rapport::Error 422 on "email" when `data` has no valid e-mail.
std::optional<std::string> findIdByEmail(rapport::Queryable& db, const std::string& tenant,
                                         const rapport::Json& data);
// The stored fields of a row returned by find().
Contact fromRow(const rapport::Row& row);

// Write the whole record (and its tags) and return the stored row, as find()
// would. A duplicate e-mail throws a DbError with isUniqueViolation().
rapport::Row insert(rapport::Tx& tx, const std::string& id, const Contact& contact,
                    std::int64_t now);
// update() rewrites the tag rows only when the tags differ from `tagsBefore`
// (each tag row change also updates the tag counts).
void update(rapport::Tx& tx, const std::string& id, const Contact& contact,
            const std::vector<std::string>& tagsBefore, std::int64_t now);
// False when there was no such contact.
bool remove(rapport::Tx& tx, const std::string& id);
// Clears the link to a deleted CRM company from the tenant's contacts.
void unlinkCompany(rapport::Tx& tx, const std::string& crmCompanyId, std::int64_t now);

}  // namespace store
}  // namespace contacts
