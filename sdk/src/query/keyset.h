// Keyset pages of the record query engine: the rows after a cursor's
// position in the list's order, and the cursor of the page's last row.
#pragma once

#include <cstdint>
#include <string>

#include "compiled.h"
#include "rapport/secrets.h"

namespace rapport::query {

struct KeysetPage {
  Result rows;      // at most `limit`
  Json nextCursor;  // null on the last page
};

// The page of `limit` rows after `cursor` (empty: from the start) of the
// list `where` in `sort`, read with `columns` from `db`.
KeysetPage keysetPage(Queryable& db, const SecretBox& box, const Compiled& self,
                      const WhereClause& where, const Sort& sort, const std::string& columns,
                      std::int64_t limit, const std::string& cursor);

}  // namespace rapport::query
