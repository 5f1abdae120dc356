#include "batch/BatchDoc.h"

#include <utility>

#include "batch/BatchItems.h"

namespace rapport::host {
namespace {

using rapport::Json;
namespace schema = rapport::schema;

// The member `pick` of each route's description that has one; both (as
// anyOf) when they differ; null when neither has it.
Json eitherOf(const Route& post, const Route& patch, Json rapport::RouteDoc::*pick) {
  Json a = post.doc ? (*post.doc).*pick : Json();
  Json b = patch.doc ? (*patch.doc).*pick : Json();
  if (a.isNull()) return b;
  if (b.isNull() || a.dump() == b.dump()) return a;
  return Json::object({{"anyOf", Json(Json::Array{std::move(a), std::move(b)})}});
}

// "contacts" for "/v1/crm/contacts".
std::string collectionName(const std::string& pattern) {
  return pattern.substr(pattern.rfind('/') + 1);
}

// True when `upsertBy` is a field of the collection's own, upserts' default;
// false for a collection that upserts only by a unique custom field, whose
// upsertBy says so ("custom_fields.<key> (match_on)": the record engine's)
// and whose upserts must name one.
bool hasDefaultKey(const std::string& upsertBy) {
  return upsertBy.rfind("custom_fields.", 0) != 0;
}

// What upserts match on (rapport/batch.h): `upsertBy` unless the batch or
// the item names another unique field, such as a custom field.
Json matchOnSchema(const std::string& upsertBy, const std::string& which) {
  const std::string fallback = hasDefaultKey(upsertBy)
                                   ? "; `" + upsertBy + "` when none is sent"
                                   : "; this collection has no other key, so its upserts need one";
  return schema::string(which + ": a unique field, such as a unique custom field " +
                        "(`custom_fields.<key>`)" + fallback +
                        ". A field that cannot be matched on is a 422 on `match_on`.")
      .set("minLength", 1);
}

Json itemSchema(const Route& post, const Route& patch, const std::string& upsertBy) {
  std::vector<std::string> actions = {"create", "update"};
  if (!upsertBy.empty()) actions.emplace_back("upsert");
  Json data = eitherOf(post, patch, &rapport::RouteDoc::body);
  if (data.isNull()) data = schema::anyObject();
  schema::Properties properties = {{"action", schema::enumOf(actions)},
                                   {"id", schema::string("The record to update (update only).")}};
  if (!upsertBy.empty()) {
    properties.emplace_back("match_on", matchOnSchema(upsertBy,
                                                      "What this upsert item (upsert only) "
                                                      "matches on, over the batch's `match_on`"));
  }
  properties.emplace_back("data", std::move(data));
  return schema::object(std::move(properties), {"action", "data"});
}

Json bodySchema(const Route& post, const Route& patch, const std::string& upsertBy) {
  Json items = schema::arrayOf(itemSchema(post, patch, upsertBy));
  items.set("minItems", Json(std::int64_t{1}));
  items.set("maxItems", Json(static_cast<std::int64_t>(kMaxBatchItems)));
  schema::Properties properties;
  if (!upsertBy.empty()) {
    properties.emplace_back(
        "match_on",
        matchOnSchema(upsertBy, "What the upsert items without their own `match_on` match on"));
  }
  properties.emplace_back("items", std::move(items));
  return schema::object(std::move(properties), {"items"});
}

// One item's result: a success's status and data, or a failure's status,
// message and field errors.
Json resultSchema(const Route& post, const Route& patch) {
  schema::Properties properties = {
      {"status", schema::integerBetween(200, 599, "The item's own status.")}};
  if (Json data = eitherOf(post, patch, &rapport::RouteDoc::data); !data.isNull()) {
    properties.emplace_back("data", std::move(data));
  }
  properties.emplace_back("message", schema::string());
  // As ValidationError's errors: each field at fault with its messages.
  properties.emplace_back(
      "errors", schema::object({}, {}, "Field errors of a 422 item: each field with its messages.")
                    .set("additionalProperties", schema::arrayOf(schema::string())));
  return schema::object(std::move(properties), {"status"});
}

std::string description(const Route& post, const Route& patch, const std::string& upsertBy) {
  std::string text = "Up to " + std::to_string(kMaxBatchItems) +
                     " items, each run as its own request: `create` as `POST " + post.pattern +
                     "` with `data` as the body, `update` as `PATCH " + patch.pattern +
                     "` with `id`";
  if (!upsertBy.empty()) {
    text += hasDefaultKey(upsertBy)
                ? ", `upsert` as an update of the record with the same `" + upsertBy +
                      "` (or the same value of the field its `match_on`, or the batch's, names)"
                : ", `upsert` as an update of the record with the same value of the unique "
                  "custom field its `match_on`, or the batch's, names";
    text += ", or a create when there is none";
  }
  return text +
         ". The answer has one result per item, in order: its status and `data`, or its "
         "`message` and `errors`. Each item has its own transaction and events; a failing item "
         "changes nothing and stops no other. A malformed body is a 422 for the whole call, "
         "nothing run. The call counts as one request for the rate limit.";
}

}  // namespace

rapport::RouteDoc batchDoc(const Route& post, const Route& patch, const std::string& upsertBy) {
  const std::string name = collectionName(post.pattern);
  return {.summary = (upsertBy.empty() ? "Create or update " : "Create, update or upsert ") + name +
                     " in a batch",
          .description = description(post, patch, upsertBy),
          .tag = post.doc ? post.doc->tag : std::string{},
          .body = bodySchema(post, patch, upsertBy),
          .status = 200,
          .data = schema::arrayOf(resultSchema(post, patch))};
}

}  // namespace rapport::host
