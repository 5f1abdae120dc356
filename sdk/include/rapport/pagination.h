// Pagination (page, per_page, meta) and sorting (sort=field | -field).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/json.h"

namespace rapport {

struct PageRequest {
  std::int64_t page = 1;
  std::int64_t perPage = 20;
  std::int64_t offset() const { return (page - 1) * perPage; }
};

// Reads `page` (>= 1, default 1) and `per_page` (1..100, default 20) from the
// query; anything else throws a 422 naming the parameter.
RAPPORT_SDK_API PageRequest parsePage(const Request& request);

// {"current_page", "per_page", "total", "last_page" (at least 1)}.
RAPPORT_SDK_API Json pageMeta(const PageRequest& page, std::int64_t total);

// One more key of a sort (since 7.0).
struct SortKey {
  std::string column;  // SQL expression, from the declaration
  bool descending = true;
};

struct Sort {
  std::string column;  // SQL column, from the allow-list
  bool descending = true;
  // Since 7.0: the next keys, in order (record_query.h sorts on up to 3).
  std::vector<SortKey> then = {};
};

// Reads `sort` ("name" or "-name"). `allowed` maps API field names to SQL
// columns; an unknown field throws a 422 on "sort". Absent: `fallback`.
RAPPORT_SDK_API Sort parseSort(const Request& request,
                               const std::map<std::string, std::string>& allowed, Sort fallback);

// "ORDER BY <column> <ASC|DESC>[, <then...>], id <the last key's direction>":
// ties break on id.
RAPPORT_SDK_API std::string orderByClause(const Sort& sort);

}  // namespace rapport
