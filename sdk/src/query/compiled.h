// The record query engine's private parts (rapport/record_query.h): a
// declaration checked and indexed once, shared by every copy of a
// RecordQuery and read by the filter compiler, the sort, the cursor and the
// answer.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "rapport/record_query.h"

namespace rapport::query {

// The declaration with its lookups (pointers into schema.fields: never copied).
struct Compiled {
  RecordSchema schema;
  std::map<std::string, const QueryField*> byName;  // every field, created_at, updated_at, id
  std::map<std::string, const QueryField*> byHop;   // "company" -> company_id
  std::set<std::string> outputs;                    // what `fields=` may name
  std::map<std::string, const QueryInclude*> polymorphic;
  Sort defaultSort;
  // Side-table fields by the rank key their sort leads with (sideRankOf).
  std::map<std::string, const QueryField*> bySideRank;
};

// The Compiled behind a RecordQuery.
struct Access {
  static const Compiled& of(const RecordQuery& query) {
    return *static_cast<const Compiled*>(query.compiled_.get());
  }
};

// The declaration checked (std::invalid_argument naming a mistake) and indexed.
std::shared_ptr<const Compiled> compile(RecordSchema schema);

// The order of `keys` ("-value", "name"; empty: the default); 422 on "sort".
Sort sortOf(const Compiled& self, const std::vector<std::string>& keys);

// One filter's SQL: conditions to AND into a WhereClause, each with its
// values; `narrowing` marks one an index of its own serves (a search-index
// lookup), which WhereClause::addNarrowing then adds.
struct Condition {
  std::string sql;
  Params params;
  bool narrowing = false;
  // SQLite, a range on a plain indexed column (value >= ?; a column whose
  // sort expression is itself): the same condition with
  // the column hidden from the planner ("+value >= ?"). SQLite would take a
  // range's own index and sort every match; hidden, it walks the order's
  // index and stops after the page, which is cheaper when the range is
  // dense (keyset.h's denseRange decides). `rangeColumn` names the column.
  // A side-table field's condition (QueryField::sideTable) has one too: a
  // correlated EXISTS on the record's own row instead of the semi-join.
  std::string walkingSql = "";
  std::string rangeColumn = "";
  // Whether an index could serve the condition (a comparison, in, IS NULL,
  // a text match, a tag, a hop; an and holding one, an or of only such),
  // and the column or expression it compares when that is one. How many
  // rows such a condition matches depends on its values, and so may the
  // best plan of its list (the condition's index, or the order's walked).
  // One no index serves (ne, nin, IS NOT NULL, not, an or with such a
  // branch) is tested on each row of the same plan whatever its values.
  bool indexable = true;
  std::string subject = "";
  // A side-table field's condition that only records with a value meet (not
  // ne, nin, null: true): the field, and the condition on its side rows
  // alone (rows of the field: "v_num >= ?"), which a list sorted by that
  // field reads its page through (keyset.cpp, sidePage).
  const QueryField* sideField = nullptr;
  std::string sideSql = "";
  Params sideParams = {};
};
// The filter object compiled against `self` (throws Error::validation on
// "filter..." paths). `counts`: where `contains` reads trigram counts, to ask
// a search index for the term's rarest trigrams (search_sql.h); without it,
// the whole term.
std::vector<Condition> compileFilter(const Compiled& self, const Json& filter, Dialect dialect,
                                     const std::string& tenant,
                                     const RecordQuery::SchemaLookup& schemaOf,
                                     Queryable* counts = nullptr);

// True when no value of `conditions` can change the best plan of a list in
// `sort`: each is one no index serves, or compares the order's first key
// (which the order's index serves). A keyset page then lets PostgreSQL keep
// one plan for every request (keyset.cpp, keysetPage).
bool onePlanFits(const std::vector<Condition>& conditions, const Sort& sort);

// The NOT NULL expression a sort by `field` orders by.
std::string sortExpressionOf(const QueryField& field);

// A side-table field (QueryField::sideTable) sorts on two keys: this rank,
// 0 for a record that has a value and 1 for one that has none, always
// ascending, then its sortExpression in the direction asked: records
// without a value come last in either direction, and a one-key sort on it
// reads the valued records from the side table's index (keyset.cpp).
std::string sideRankOf(const RecordSchema& schema, const QueryField& field);
// The value sortExpression gives a record without one: the lowest BIGINT
// for number kinds, '' for the others.
std::string sideSentinelOf(const QueryField& field);

// The limits of decisions §13.
constexpr int kMaxConditions = 50;
constexpr int kMaxDepth = 5;
constexpr std::size_t kMaxInValues = 100;
constexpr std::size_t kMaxSortKeys = 3;
constexpr std::int64_t kMaxLimit = 100;
constexpr std::size_t kMaxFilterText = 1000;  // longest text value a condition compares

}  // namespace rapport::query
