// SQL pieces shared by the list helpers' sources (where.cpp, list.cpp,
// tags.cpp). Private to the SDK library: not installed, not exported.
#pragma once

#include <string>

#include "rapport/db.h"
#include "rapport/where.h"

namespace rapport::detail {

// The tenant condition; `hideIndex` writes it "+company_id = ?", which keeps
// SQLite's planner (no statistics) from walking the tenant's index when
// another condition should drive. PostgreSQL needs no such hint.
std::string tenantEquals(Dialect dialect, bool hideIndex);

// The tenant as a filter no index may serve, on both engines ("+company_id
// = ?" on SQLite, "company_id || '' = ?" on PostgreSQL): for a statement
// whose other condition is a record's own key. PostgreSQL's generic plan
// of a prepared statement (its sixth run on) does not know the values, and
// without statistics it walked the tenant's range of an index led by
// company_id (673 buffers, 3.6 ms at 67,000 tag rows, against 5 and 0.06 ms
// through the key).
std::string tenantFilterOnly(Dialect dialect);

// "SELECT <recordColumn> FROM <table> WHERE company_id = ? AND <key>": the
// set's members, bound by the tenant and the key values.
std::string setMembers(const WhereClause::SetTable& set);

}  // namespace rapport::detail
