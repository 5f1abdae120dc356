// The body of POST <collection>/batch, read and checked as a whole before any
// item runs (rapport/batch.h; docs/api-choices.md "Batch writes"):
//
//   {"match_on": "..." (optional),
//    "items": [{"action": "create" | "update" | "upsert",
//               "id": "..." (update only),
//               "match_on": "..." (upsert only, optional), "data": {...}}, ...]}
//
// with 1 to kMaxBatchItems items. Anything else is one 422 for the whole
// call, nothing run, each problem keyed by its dotted path like every nested
// field error of the API ("items", "items.3", "items.3.action", "match_on",
// "items.3.match_on"). Whether the field match_on names can be matched on is
// the collection's match to say, per item (rapport/batch.h).
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
  std::string id;           // update only
  std::string matchOn;      // upsert only: the item's match_on, else the batch's, else empty
  bool ownMatchOn = false;  // matchOn is the item's own
  Json data;                // an object
};

// The items of `body` in order. `upsertBy` is the collection's upsert key,
// empty when it has none (an upsert item is then refused). Throws
// rapport::Error::validation with every problem found.
std::vector<BatchItem> readBatchItems(const Json& body, const std::string& upsertBy);

}  // namespace rapport::host
