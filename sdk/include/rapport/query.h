// The shared building blocks of a record module (contacts, companies, deals,
// activities...): the WHERE clause of a tenant's list and its page, the text
// search, tags, and the request rules every such module repeats. One
// implementation, so every list searches, filters, pages and validates the
// same way, and the subtle parts (LIKE and FTS5 escaping, the SQLite planner
// hint) are written once.
//
//   rapport::WhereClause where(db.dialect(), tenant);
//   if (filter.search) rapport::addTextSearch(where, "contacts_search", *filter.search);
//   if (filter.tag) rapport::addTagFilter(where, kTags, *filter.tag);
//   if (filter.ownerId) where.add("owner_id = ?", {*filter.ownerId});
//   rapport::ListPage found = rapport::selectPage(db, kColumns, "contacts", where, sort, page);
//
// Conventions of a record table (beyond db.h's), which these helpers rely on:
//   - search: a generated column `search_text` holding the searchable fields,
//     lower-cased and joined by a line break (so no match spans two fields).
//     PostgreSQL indexes it with GIN (search_text gin_trgm_ops). SQLite names
//     its rowid `seq INTEGER PRIMARY KEY` and indexes search_text with an FTS5
//     table (content = '<table>', content_rowid = 'seq', tokenize = 'trigram')
//     kept in sync by triggers. modules/contacts/migrations is the model.
//   - tags: the record's `tags` column holds the tags as written, as a JSON
//     array (tagsToJsonText); a tag table (company_id, <record>_id, tag_lower,
//     created_at) and its counts table serve the tag filter (TagTable).
//
// Identifiers passed here (tables, columns, conditions) are pasted into SQL:
// pass only the module's own constants, never input. Values are always bound.
//
// Lifetime and threading: free functions without state, and plain values; a
// WhereClause belongs to the thread that builds it and owns copies of what it
// is given. Functions taking a Queryable or a Tx follow db.h (use them on the
// thread, and inside the callback, that received it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapport/db.h"
#include "rapport/error.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/pagination.h"
#include "rapport/records.h"
#include "rapport/validation.h"

namespace rapport {

// --- One record --------------------------------------------------------------

// How selectRecord locks the row it reads, on PostgreSQL. SQLite takes no row
// locks: a write transaction already holds the database's write lock.
enum class RowLock {
  None,
  KeyShare,     // FOR KEY SHARE: the row stays (no delete) until the transaction ends
  NoKeyUpdate,  // FOR NO KEY UPDATE: the row will change, but references to it may still be taken
  Update,       // FOR UPDATE: the row will change or be deleted
};

// The lock a record directory lookup asks for (records.h): KeyShare for
// RecordLock::Share, None otherwise.
RAPPORT_SDK_API RowLock rowLockFor(RecordLock lock);

// "SELECT <columns> FROM <table> WHERE company_id = ? AND id = ?" with the
// lock's clause: the tenant's record `id`, or nullopt. Every module's find,
// findForUpdate and record-directory exists are this one statement.
RAPPORT_SDK_API std::optional<Row> selectRecord(Queryable& db, std::string_view columns,
                                                std::string_view table, const std::string& tenant,
                                                const std::string& id,
                                                RowLock lock = RowLock::None);

// --- Lists: WHERE clause and page -------------------------------------------

// The WHERE clause of a list of one tenant's records, and its parameters:
// "company_id = ?" first (every query filters on the tenant), then each
// condition added, joined by AND. One clause serves both statements of a page
// (the rows and the COUNT), so they can never disagree.
class RAPPORT_SDK_API WhereClause {
 public:
  WhereClause(Dialect dialect, std::string tenant);

  // Appends " AND <condition>"; `values` bind its "?" placeholders, in order.
  void add(std::string_view condition, std::initializer_list<Value> values = {});
  // The same, for a condition that selects few rows through an index of its
  // own (a full-text match, a tag lookup): those rows must drive the query,
  // so the work grows with the matches rather than with the tenant's rows.
  // SQLite has no statistics and would rather walk the tenant's index in
  // order and test every row; once such a condition is added, the tenant
  // condition is written "+company_id = ?" (the unary + hides the tenant
  // index from its planner). PostgreSQL decides by statistics: no change.
  void addNarrowing(std::string_view condition, std::initializer_list<Value> values = {});

  // A narrowing condition over a set table: a table of its own holding one
  // row (company_id, <recordColumn>, ..., created_at) per member record of
  // one tenant, and only rows of that tenant's existing records (a tag table:
  // rows written and deleted with the record). `key` selects the members
  // ("tag_lower = ?", bound by `keyValues`); the table's index
  // (company_id, <key columns>, created_at, <recordColumn>) must serve it.
  // Adds "id IN (SELECT <recordColumn> FROM <table> WHERE company_id = ? AND
  // <key>)". When it is the clause's only condition, selectPage takes the
  // page's ids from that index in the default order (created_at), and the
  // total from `countsTable` (company_id, <key columns>, slot, total), whose
  // slots triggers on the set table keep exact (see selectPage): cost flat
  // however many records match. Without a countsTable it counts the set
  // table's rows.
  struct SetTable {
    std::string table;
    std::string recordColumn;
    std::string key;
    Params keyValues;
    std::string countsTable;  // optional
  };
  void addSetMembership(SetTable set);

  Dialect dialect() const { return dialect_; }
  const std::string& tenant() const { return tenant_; }
  // The set table when addSetMembership added the one and only condition.
  const SetTable* soleSet() const { return soleSet_ ? &*soleSet_ : nullptr; }
  // True once addNarrowing (or a helper that uses it) has added a condition.
  bool narrowed() const { return narrowed_; }
  // True once any condition beyond the tenant's has been added.
  bool filtered() const { return !conditions_.empty(); }
  // "company_id = ?", or "+company_id = ?" when narrowed on SQLite.
  std::string tenantCondition() const;
  // tenantCondition(), then " AND <condition>" for each condition.
  std::string sql() const;
  // The tenant, then the values of each condition in the order added.
  const Params& params() const { return params_; }

 private:
  Dialect dialect_;
  std::string tenant_;
  std::string conditions_;  // " AND <condition>" for each condition
  Params params_;
  bool narrowed_ = false;
  std::optional<SetTable> soleSet_;  // while a set membership is the only condition
};

// One page of a list and the number of records matching it (meta.total).
struct ListPage {
  Result rows;
  std::int64_t total = 0;
};

// Runs "SELECT <columns> FROM <table> WHERE <where> ORDER BY ... LIMIT ? OFFSET ?"
// (orderByClause: ties break on id) and "SELECT COUNT(*) AS total FROM <table>
// WHERE <where>".
//
// countsTable, when given, names a table (company_id TEXT, slot SMALLINT,
// total BIGINT, PRIMARY KEY (company_id, slot)) whose totals add up to the
// exact number of each tenant's rows of `table`. AFTER INSERT / AFTER DELETE
// row triggers on `table` add 1 or -1 to one slot: on PostgreSQL one of a few
// at random, so concurrent writers of one tenant rarely wait for each other's
// count row; on SQLite (one writer) always slot 0. An unfiltered list
// (where.filtered() is false) reads its total as the sum of the tenant's
// slots, a few indexed rows, instead of counting all the tenant's rows: its
// cost stays flat however large the tenant grows.
// modules/contacts/migrations/*/0004_contact_counts_slots.sql is the model.
//
// A list whose only condition is a set membership (the tag filter) pages on
// the set table's index and reads its total from the set's counts table
// (WhereClause::addSetMembership). Other filtered lists count their matches:
// cost grows with the matches, not the table.
RAPPORT_SDK_API ListPage selectPage(Queryable& db, std::string_view columns, std::string_view table,
                                    const WhereClause& where, const Sort& sort,
                                    const PageRequest& page, std::string_view countsTable = {});

// The list answer of a page: each row through `toJson` (the module's one
// JSON shape of its record) as data, and pageMeta(page, found.total) as meta.
RAPPORT_SDK_API Response listResponse(const ListPage& found, const PageRequest& page,
                                      const std::function<Json(const Row&)>& toJson);

// --- Text search -------------------------------------------------------------

// The shortest term, in characters (code points), a trigram index can match.
inline constexpr std::size_t kTrigramLength = 3;
// The longest ?search= term a list accepts, in characters.
inline constexpr std::size_t kMaxSearchLength = 255;

// "%term%" for `LIKE ? ESCAPE '\'`: matches `term` anywhere, its own %, _ and
// \ escaped so they match literally.
RAPPORT_SDK_API std::string likeContains(std::string_view term);

// `term` as one FTS5 string: in double quotes, its own quotes doubled. FTS5
// reads it as one phrase (operators and quotes in it are literal); with the
// trigram tokenizer a phrase matches as a substring, in any case.
RAPPORT_SDK_API std::string ftsPhrase(std::string_view term);

// Adds to `where` the condition that matches `term` as a substring of the
// table's search_text, in any case (the conventions above), through the
// engine's index:
//   PostgreSQL: search_text LIKE lower(?) ESCAPE '\' with likeContains(term),
//     served by the trigram GIN index (the planner picks it by cost);
//   SQLite, terms of kTrigramLength characters or more:
//     seq IN (SELECT rowid FROM <ftsTable> WHERE <ftsTable> MATCH ?) with
//     ftsPhrase(term), added with addNarrowing;
//   SQLite, shorter terms (no trigram to look up): the same LIKE, which reads
//     the tenant's rows (documented limitation; ASCII-only case folding).
// `ftsTable` is the table's FTS5 table ("contacts_search"), used on SQLite only.
RAPPORT_SDK_API void addTextSearch(WhereClause& where, std::string_view ftsTable,
                                   std::string_view term);

// --- Tags --------------------------------------------------------------------

// A record type's tag table: one row (company_id, <recordColumn>, tag_lower,
// created_at) per tag, created_at copied from the record (it never changes),
// with PRIMARY KEY (<recordColumn>, tag_lower) and an index
// (company_id, tag_lower, created_at, <recordColumn>) that serves the tag
// filter and its default order; and a counts table (company_id, tag_lower,
// slot, total), PRIMARY KEY (company_id, tag_lower, slot), kept by row
// triggers on the tag table like selectPage's countsTable, for the filter's
// total. The names are the module's constants
// (modules/contacts/migrations/*/0003_contact_tags_order.sql is the model):
//   constexpr rapport::TagTable kTags{"contact_tags", "contact_id", "contacts",
//                                     "contact_tag_counts"};
struct TagTable {
  std::string_view table;
  std::string_view recordColumn;
  std::string_view recordTable;  // the records: created_at is copied from there
  std::string_view countsTable;  // records per tag and tenant
};

// The tags, in order, as the JSON array text stored in a record's `tags`
// column: ["VIP","lead"].
RAPPORT_SDK_API std::string tagsToJsonText(const std::vector<std::string>& tags);
// The reverse; throws JsonParseError or std::logic_error on text that is not
// an array of strings (a corrupt row, a 500).
RAPPORT_SDK_API std::vector<std::string> tagsFromJsonText(std::string_view text);

// Replaces the tag rows of record `recordId` of tx's tenant by `tags`
// (lower-cased; pass them deduplicated, as Validator::tags returns them).
// Call it after the record's row is written: it copies its created_at.
RAPPORT_SDK_API void replaceTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId,
                                    const std::vector<std::string>& tags);
// Deletes the tag rows of record `recordId` of tx's tenant (with the record).
RAPPORT_SDK_API void deleteTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId);

// Adds the tag filter: records (by `id`) having `tag`, in any case (ASCII),
// through the tag table's index; a set membership (WhereClause).
RAPPORT_SDK_API void addTagFilter(WhereClause& where, const TagTable& tagTable,
                                  std::string_view tag);

// --- Requests ----------------------------------------------------------------

// A list filter from the query string: the parameter, trimmed; nullopt when
// it is absent or blank (a blank filter is ignored).
RAPPORT_SDK_API std::optional<std::string> filterParam(const Request& request,
                                                       std::string_view name);

// The ?search= term, read as filterParam. A term longer than kMaxSearchLength
// records "The search may not be greater than 255 characters." on "search" in
// `errors`; the caller throws Error::validation with its other filter errors.
RAPPORT_SDK_API std::optional<std::string> searchParam(const Request& request, FieldErrors& errors);

// An optional text field of a body: Validator::string, not required, of at
// most `max` characters, where a value blank after trimming reads as null (so
// it clears the field, and an empty string is never stored).
RAPPORT_SDK_API Field<std::string> optionalText(Validator& validator, const std::string& field,
                                                std::size_t max);

// Runs `write`; a DbError that is a unique violation becomes
// Error::conflict(message) (409, "A contact with this email already exists.").
// Anything else passes through unchanged.
RAPPORT_SDK_API void conflictOnDuplicate(const std::string& message,
                                         const std::function<void()>& write);

}  // namespace rapport
