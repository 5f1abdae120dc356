// Keyset pages of the record query engine: the rows after a cursor's
// position in the list's order, and the cursor of the page's last row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiled.h"
#include "rapport/secrets.h"

namespace rapport::query {

struct KeysetPage {
  Result rows;      // at most `limit`
  Json nextCursor;  // null on the last page
};

// The page of `limit` rows after `cursor` (empty: from the start) of the
// list `list` in `sort`, read with `columns` from `db` through `where`: the
// same conditions as `list`, possibly written for another plan (a walking
// range, Condition::walkingSql). Cursors are bound to `list`. `onePlan`:
// no value of the list's conditions changes its best plan (onePlanFits),
// so PostgreSQL may plan the statement once for every request.
KeysetPage keysetPage(Queryable& db, const SecretBox& box, const Compiled& self,
                      const WhereClause& list, const WhereClause& where, const Sort& sort,
                      const std::string& columns, std::int64_t limit, const std::string& cursor,
                      bool onePlan, const std::vector<const Condition*>& pushed = {});

// How many matches make a range dense: at least this many, and a walk of
// the order's index finds a page among them sooner than sorting them all.
constexpr std::int64_t kDenseRange = 2000;

// True when `where` matches kDenseRange rows or more of `self`'s table
// (counted through the range's own index, never more than that many).
bool denseRange(Queryable& db, const Compiled& self, const WhereClause& where);

}  // namespace rapport::query
