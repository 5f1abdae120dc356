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

// "SELECT <recordColumn> FROM <table> WHERE company_id = ? AND <key>": the
// set's members, bound by the tenant and the key values.
std::string setMembers(const WhereClause::SetTable& set);

}  // namespace rapport::detail
