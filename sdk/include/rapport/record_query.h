// The query language of every record list (decisions §13): `filter`, `sort`
// on up to three keys, `fields`, `include`, keyset cursors (`limit`,
// `cursor`, `count`) and `POST <list>/search`, written once for every record
// module, first-party or third-party (rapport::Resource uses it for its own
// lists).
//
// A module declares what a client may query (a RecordSchema: each field's
// API name, its column and its kind), and hands each list request to the
// engine with the WHERE clause of its own parameters (the tenant, a sub-list's
// parent, the list's historic filters):
//
//   static const rapport::RecordQuery kQuery({.recordType = "contact", .table = "contacts",
//       .fields = {{.name = "name", .column = "name", .nullable = false},
//                  {.name = "company_id", .column = "crm_company_id",
//                   .kind = rapport::QueryKind::Id, .reference = "company"}, ...}});
//   rapport::ListRequest list = kQuery.read(request);            // or readBody()
//   rapport::WhereClause where(db.dialect(), tenant);            // + the module's filters
//   return kQuery.answer(host, list, std::move(where), kColumns, contactJson);
//
// What the engine guarantees:
//   - Filters are data, never SQL text: every field name and operator is
//     looked up in the declaration, every value is bound. Anything else
//     (unknown field or operator, an operator that does not fit the kind, a
//     value of the wrong type, JSON that does not parse, more than 50
//     conditions or 5 levels) is a 422 naming the path: errors["filter.value.gte"].
//   - One hop through a reference (`company.industry` on contacts) compiles to
//     a semi-join on the referenced record type's own declaration, which its
//     owner lends through the record directory (RecordType::schema).
//   - Null semantics: `ne` and `nin` also match records where the field is
//     unset (the value is not the one named); `not` is the exact complement
//     of its filter (a record the inner filter does not match, unset fields
//     included).
//   - Sort keys are NOT NULL expressions (coalesced; unset values first in
//     ascending order unless the field's sortExpression says otherwise), so
//     both engines order nulls alike and a keyset condition can never lose
//     the null block; ties break on id, in the last key's direction.
//   - Cursors are sealed by the host's SecretBox (secrets.h) for one company,
//     one record type, one filter and one sort: a tampered, foreign or
//     mismatched cursor is a 422 on `cursor`. They carry the last row's sort
//     values and id (a keyset): stable under inserts and deletes, no depth
//     limit, never a skip or a repeat of a record that existed throughout.
//   - Without `limit` and `cursor` the list pages with page/per_page and
//     answers the pagination meta exactly as before (filters and sorts
//     included).
//
// ABI (abi.h): QueryField, QueryInclude and RecordSchema are constructed by
// modules: a change of their members is an ABI major change. RecordQuery
// holds only a shared pointer to its declaration; ListRequest is a value the
// SDK library builds and reads (its layout is part of the ABI as well).
//
// Threading: a RecordQuery is immutable once constructed and may serve every
// thread at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rapport/api_doc.h"
#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/json.h"
#include "rapport/pagination.h"
#include "rapport/where.h"

namespace rapport {

class Host;
class Registry;
class RecordQuery;
namespace query {
struct Access;
}

// What a queryable field holds; its kind decides the operators it takes and
// how a filter value is read.
enum class QueryKind {
  // A string. eq, ne, in, nin compare exactly; gt, gte, lt, lte compare
  // case-insensitively (as the sort orders); contains and starts_with are
  // case-insensitive.
  Text,
  // An id (a record's or a reference's): eq, ne, in, nin, null, compared exactly.
  Id,
  // One of `options` (a status, a type): eq, ne, in, nin, null; another value
  // is a 422.
  Enum,
  // An integer (Integer and Money: cents): eq, ne, gt, gte, lt, lte, in, nin, null.
  Number,
  // true or false: eq, ne, null.
  Boolean,
  // "YYYY-MM-DD" stored as text: the comparisons, in, nin, null.
  Date,
  // An instant stored as UTC microseconds; filter values are ISO-8601 with
  // any offset: the comparisons, in, nin, null.
  DateTime,
  // An array of tags (tags.h): contains (holds the tag, in any case), null
  // (true: no tag). Not sortable. On a side table (sideTable below): an
  // array of option values, `contains` compared exactly.
  Tags,
  // Since 9.0: a number with up to 6 decimals, stored as an integer of
  // micro-units (x 1,000,000): the operators of Number; filter values are
  // JSON numbers.
  Decimal,
};

// One field a client may filter and sort on.
struct QueryField {
  // Its API name, as the record's JSON shows it ("company_id"); a dotted name
  // ("related_to.type") is a member of an object field.
  std::string name = "";
  // The table's column (or an SQL expression over its columns) holding it.
  std::string column = "";
  QueryKind kind = QueryKind::Text;
  // Enum: the allowed values.
  std::vector<std::string> options = {};
  // False when the column is never null (required, or with a default).
  bool nullable = true;
  // False keeps it out of `sort` (Tags never sort).
  bool sortable = true;
  // The expression a sort orders by; empty: derived from the kind (text
  // lower-cased, a nullable column coalesced so that nulls sort first in
  // ascending order on both engines). It must be NOT NULL. A module that
  // has an index on another expression (nulls last, say) names it here.
  std::string sortExpression = "";
  // Id only: the record type this field refers to ("company"). Then
  // "<hop>.<field>" filters through the reference (one hop, on the target's
  // declaration) and `include=<hop>` embeds the target as its GET shows it.
  std::string reference = "";
  // The reference's name in paths and includes; empty: `name` without its
  // "_id" ("company_id" gives "company").
  std::string hop = "";
  // Text only: part of the table's search_text (search.h), so `contains`
  // first narrows on the search index, then checks this field.
  bool searchable = false;
  // Since 9.0: the values live in a side table, one row per record that has
  // one (Tags: one per element), and `column` is that table's value column.
  // Every condition is then a semi-join,
  //   id IN (SELECT record_id FROM <sideTable> WHERE company_id = ? AND
  //          <sideKey> AND <the condition on column>),
  // (`ne`, `nin` and `null: true` the NOT IN of their opposite, so records
  // without a row match them), served by the side table's index. The sort
  // needs sortExpression (over the record table). A custom field
  // (custom_fields.h) is such a field.
  std::string sideTable = "";
  std::string sideKey = "";  // SQL without parameters: "field_id = 'cf_...'"
};

// A reference whose target's type is stored beside its id (an activity's
// related_to {type, id}): `include=<name>` embeds the target.
struct QueryInclude {
  std::string name = "";       // the include's name: "related"
  std::string typeField = "";  // the QueryField holding the target's type
  std::string idField = "";    // the QueryField holding the target's id
};

// What a record type lets clients query.
struct RecordSchema {
  std::string recordType = "";  // "contact": the cursor's scope and the directory's name
  std::string table = "";       // "contacts"
  // The fields. created_at and updated_at (DateTime, not null) and id are
  // added by the engine when not declared.
  std::vector<QueryField> fields = {};
  // The record's top-level JSON members, which `fields=` may name; empty:
  // the declared fields' top-level names plus id, created_at, updated_at.
  std::vector<std::string> outputFields = {};
  // Tags: the tag table (company_id, <tagRecordColumn>, tag_lower) that
  // `contains` looks the tag up in.
  std::string tagTable = "";
  std::string tagRecordColumn = "";
  // The SQLite FTS5 table over search_text (search.h); empty: the table has
  // no search index and `contains` checks the column alone.
  std::string searchTable = "";
  // Polymorphic references that `include` embeds.
  std::vector<QueryInclude> includes = {};
  // The order without `sort`.
  std::string defaultSort = "-created_at";
  // The counts table an unfiltered list reads its total from (list.h).
  std::string countsTable = "";
};

// One list request, read from a query string or a search body.
struct ListRequest {
  Json filter = nullptr;               // the parsed filter object (null: none)
  std::vector<std::string> sort = {};  // "-value", "created_at": at most 3
  std::vector<std::string> fields = {};
  std::vector<std::string> include = {};
  bool cursorMode = false;  // limit or cursor was sent
  std::int64_t limit = 20;
  std::string cursor = "";
  bool count = false;
  PageRequest page = {};
  // Since 10.0. Who asks (read() and search() copy the request's identity):
  // an API key needs the read scope of every type a hop filter or an
  // include reaches (scopes.h), else 403.
  Identity caller = {};
};

// A record type's query language. Cheap to copy (copies share the declaration).
class RAPPORT_SDK_API RecordQuery {
 public:
  // Checks the declaration (names, kinds, options, references); a mistake
  // throws std::invalid_argument naming it.
  explicit RecordQuery(RecordSchema schema);

  const RecordSchema& schema() const;

  // Reads filter, sort, fields, include, limit, cursor, count, page and
  // per_page from the query string; throws Error::validation (422) naming
  // each bad parameter. The filter is parsed here but checked by answer().
  ListRequest read(const Request& request) const;
  // The same from a POST .../search body (an object: filter, sort as a string
  // or an array, fields and include as arrays or comma lists, limit, cursor,
  // count). A search always answers in cursor form.
  ListRequest readBody(const Json& body) const;

  // Adds the request's filter to `where` (every condition checked against
  // the declaration, every value bound); throws Error::validation (422 on
  // "filter.<path>"). `schemaOf` resolves a referenced record type's query
  // for one-hop paths (null: unknown); the host's record directory lends it
  // (RecordDirectory::query).
  using SchemaLookup = std::function<const RecordQuery*(const std::string& recordType)>;
  void addFilter(WhereClause& where, const Json& filter, const SchemaLookup& schemaOf) const;

  // The ORDER BY keys of `sort` (empty: the default), as a Sort; throws a 422
  // on "sort" for an unknown, unsortable or repeated field, or more than 3.
  Sort sortOf(const std::vector<std::string>& sort) const;

  // Runs the list and answers it: `where` holds the tenant and the module's
  // own conditions; the request's filter is added; the page (page/per_page)
  // or the keyset page (limit/cursor) is read with `columns`; each row goes
  // through `toJson`, then the record directory's augments for the record
  // type, then `include` and `fields`.
  Response answer(Host& host, const ListRequest& list, WhereClause where,
                  const std::string& columns, const std::function<Json(const Row&)>& toJson) const;

  // POST <list>/search: the body read by readBody(), answered by answer()
  // over the company's records (no sub-list, no historic filter).
  Response search(Host& host, const Request& request, const std::string& columns,
                  const std::function<Json(const Row&)>& toJson) const;

  // Describes the list route GET `path` (call after registry.route): `doc`
  // with its query replaced by queryDoc() plus the properties of doc.query
  // (the module's own filters), paged, and the cursor meta as the other
  // form of its meta.
  void describeList(Registry& registry, const std::string& path, RouteDoc doc) const;
  // Describes POST `listPath` + "/search" (registered by the module), whose
  // data is an array of `record` (a schema, usually schema::ref(<Noun>)).
  void describeSearch(Registry& registry, const std::string& listPath, const std::string& summary,
                      Json record) const;

  // The query parameters the API document lists for a list of this type
  // (page, per_page, sort, filter, fields, include, limit, cursor, count),
  // then `extra` (the module's own filters), as RouteDoc::query expects.
  Json queryDoc(std::vector<std::pair<std::string, Json>> extra = {}) const;
  // The body of POST .../search and the meta of a cursor answer, for the API document.
  Json searchBodyDoc() const;
  static Json cursorMetaDoc();

 private:
  friend struct query::Access;
  std::shared_ptr<const void> compiled_;  // query::Compiled, private to the SDK library
};

}  // namespace rapport
