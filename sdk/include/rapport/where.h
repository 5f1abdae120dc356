// The WHERE clause of a list of one tenant's records, and its parameters.
//
//   rapport::WhereClause where(db.dialect(), tenant);
//   if (filter.ownerId) where.add("owner_id = ?", {*filter.ownerId});
//   rapport::ListPage found = rapport::selectPage(db, kColumns, "contacts", where, sort, page);
//
// search.h (addTextSearch) and tags.h (addTagFilter) add their conditions to
// it; list.h (selectPage) runs it.
//
// Identifiers passed here (tables, columns, conditions) are pasted into SQL:
// pass only the module's own constants, never input. Values are always bound.
//
// Lifetime and threading: a WhereClause is a value (copyable and movable; a
// moved-from one may only be assigned to or destroyed). It belongs to the
// thread that builds it and owns copies of what it is given. Its layout is
// private to the SDK library (a pointer to its state), so it can grow
// without an ABI major.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include "rapport/db.h"
#include "rapport/export.h"

namespace rapport {

// "company_id = ?" first (every query filters on the tenant), then each
// condition added, joined by AND. One clause serves both statements of a page
// (the rows and the COUNT), so they can never disagree.
class RAPPORT_SDK_API WhereClause {
 public:
  WhereClause(Dialect dialect, std::string tenant);
  WhereClause(const WhereClause& other);
  WhereClause(WhereClause&& other) noexcept;
  WhereClause& operator=(const WhereClause& other);
  WhereClause& operator=(WhereClause&& other) noexcept;
  ~WhereClause();

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

  // Since 7.0. add() (or addNarrowing() when `narrowing`) with values held
  // in a vector: the record query engine's compiled conditions.
  void addBound(std::string_view condition, const Params& values, bool narrowing = false);

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
  //
  // SetTable is a plain argument (an aggregate): a module builds it with
  // designated initializers and passes it; the clause keeps a copy. Its
  // members are part of the SDK ABI (a change is a major version).
  struct SetTable {
    std::string table;
    std::string recordColumn;
    std::string key;
    Params keyValues;
    std::string countsTable;  // optional
  };
  void addSetMembership(SetTable set);

  Dialect dialect() const;
  const std::string& tenant() const;
  // The set table when addSetMembership added the one and only condition;
  // valid while the clause lives and is not changed.
  const SetTable* soleSet() const;
  // True once addNarrowing (or a helper that uses it) has added a condition.
  bool narrowed() const;
  // True once any condition beyond the tenant's has been added.
  bool filtered() const;
  // "company_id = ?", or "+company_id = ?" when narrowed on SQLite.
  std::string tenantCondition() const;
  // tenantCondition(), then " AND <condition>" for each condition.
  std::string sql() const;
  // The tenant, then the values of each condition in the order added; valid
  // while the clause lives and is not changed.
  const Params& params() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace rapport
