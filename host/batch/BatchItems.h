// The body of POST <collection>/batch, read and checked as a whole before any
// item runs (rapport/batch.h; docs/api-choices.md "Batch writes"):
//
//   {"items": [{"action": "create" | "update" | "upsert",
//               "id": "..." (update only), "data": {...}}, ...]}
//
// with 1 to kMaxBatchItems items. Anything else is one 422 for the whole
// call, nothing run, each problem keyed by its dotted path like every nested
// field error of the API ("items", "items.3", "items.3.action").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "rapport/json.h"

namespace rapport::host {

inline constexpr std::size_t kMaxBatchItems = 100;

enum class BatchAction { Create, Update, Upsert };

struct BatchItem {
  BatchAction action = BatchAction::Create;
  std::string id;  // update only
  Json data;       // an object
};

// The items of `body` in order. `upsertBy` is the collection's upsert key,
// empty when it has none (an upsert item is then refused). Throws
// rapport::Error::validation with every problem found.
std::vector<BatchItem> readBatchItems(const Json& body, const std::string& upsertBy);

}  // namespace rapport::host
