// Batch writes (since 6.1): POST <collection>/batch for a module's records,
// served by the host from the module's own create and update routes
// (Registry::batch; docs/api-choices.md "Batch writes").
//
//   body   {"items": [{"action": "create", "data": {...}},
//                     {"action": "update", "id": "cont_...", "data": {...}},
//                     {"action": "upsert", "data": {...}}]}   1 to 100 items
//   answer 200 {"data": [ one result per item, in order ]}: each result is
//          {"status": 201|200, "data": {...}} or
//          {"status": 4xx, "message": "...", "errors": {...}}
//
// Each item is its own request: its own transaction, its own events, its own
// success or error (a failing item changes nothing and stops no other
// item). `create` runs the collection's POST with `data` as the body;
// `update` runs PATCH <collection>/{id}; `upsert` asks the module's `match`
// for the record `data` names, then updates it, or creates it when there is
// none (and updates it when a concurrent create won: the create's 409).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "rapport/db.h"
#include "rapport/json.h"

namespace rapport {

// The id of the record an upsert item's `data` names in `companyId`
// (contacts: the one with its e-mail), or nullopt when there is none. Throw
// rapport::Error 422 when `data` lacks what it matches on. Since 9.0
// `matchOn` is the item's (or the batch's) `match_on` ("email",
// "custom_fields.external_id"), empty when neither sent one: the match
// throws a 422 on "match_on" for a field it cannot match on.
using UpsertMatch = std::function<std::optional<std::string>(
    Queryable& db, const std::string& companyId, const Json& data, const std::string& matchOn)>;

struct BatchSpec {
  // The field upserts match on, for the errors and the API document
  // ("email"); empty together with `match` when the collection has no upsert
  // (an upsert item is then a 422 of its own).
  std::string upsertBy = {};
  UpsertMatch match = {};
};

}  // namespace rapport
