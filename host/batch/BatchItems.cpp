#include "batch/BatchItems.h"

#include <optional>

#include "rapport/error.h"

namespace rapport::host {
namespace {

std::string required(const std::string& key) {
  return "The " + key + " field is required.";
}

// The action of item `key`, or nullopt (with its message in `errors`).
std::optional<BatchAction> readAction(const Json& item, const std::string& key,
                                      const std::string& upsertBy, FieldErrors& errors) {
  const std::string field = key + ".action";
  const Json* action = item.find("action");
  if (action == nullptr || action->isNull()) {
    errors[field].push_back(required(field));
    return std::nullopt;
  }
  const std::string text = action->isString() ? action->asString() : std::string{};
  if (text == "create") return BatchAction::Create;
  if (text == "update") return BatchAction::Update;
  if (text == "upsert") {
    if (!upsertBy.empty()) return BatchAction::Upsert;
    errors[field].push_back("The " + field +
                            " cannot be upsert: this collection has no upsert key.");
    return std::nullopt;
  }
  errors[field].push_back("The selected " + field + " is invalid.");
  return std::nullopt;
}

// The id: a non-empty string on an update, absent on the other actions.
std::string readId(const Json& item, const std::string& key, BatchAction action,
                   FieldErrors& errors) {
  const std::string field = key + ".id";
  const Json* id = item.find("id");
  if (action != BatchAction::Update) {
    if (id != nullptr) errors[field].push_back("The " + field + " is only allowed on an update.");
    return {};
  }
  if (id == nullptr || id->isNull() || (id->isString() && id->asString().empty())) {
    errors[field].push_back(required(field));
    return {};
  }
  if (!id->isString()) {
    errors[field].push_back("The " + field + " must be a string.");
    return {};
  }
  return id->asString();
}

// A match_on at `field` of `holder` (the body, or an item): a non-empty
// string, or absent (null counts as absent).
std::string readMatchOn(const Json& holder, const std::string& field, FieldErrors& errors) {
  const Json* matchOn = holder.find("match_on");
  if (matchOn == nullptr || matchOn->isNull()) return {};
  if (!matchOn->isString()) {
    errors[field].push_back("The " + field + " must be a string.");
    return {};
  }
  if (matchOn->asString().empty()) {
    errors[field].push_back("The " + field + " must not be empty.");
    return {};
  }
  return matchOn->asString();
}

// The item's own match_on, on an upsert only (like the id on an update): it
// says what the item's data is matched on, which no other action does.
std::string readItemMatchOn(const Json& item, const std::string& key,
                            std::optional<BatchAction> action, FieldErrors& errors) {
  const std::string field = key + ".match_on";
  std::string matchOn = readMatchOn(item, field, errors);
  if (!matchOn.empty() && action && *action != BatchAction::Upsert) {
    errors[field].push_back("The " + field + " is only allowed on an upsert.");
    return {};
  }
  return matchOn;
}

void readItem(const Json& item, const std::string& key, const std::string& upsertBy,
              const std::string& batchMatchOn, std::vector<BatchItem>& items, FieldErrors& errors) {
  if (!item.isObject()) {
    errors[key].push_back("The " + key + " must be an object.");
    return;
  }
  const std::size_t before = errors.size();
  BatchItem read;
  const auto action = readAction(item, key, upsertBy, errors);
  // A refused action still has its id and data checked, so one answer
  // names every problem; the id rule then follows what the item claims.
  read.id = readId(item, key, action.value_or(BatchAction::Create), errors);
  if (action) read.action = *action;
  read.matchOn = readItemMatchOn(item, key, action, errors);
  read.ownMatchOn = !read.matchOn.empty();
  if (!read.ownMatchOn && read.action == BatchAction::Upsert) read.matchOn = batchMatchOn;
  // A collection whose records have no unique field of their own upserts
  // only by a unique custom field, which the item or the batch must name.
  if (action == BatchAction::Upsert && read.matchOn.empty() &&
      upsertBy.starts_with("custom_fields.")) {
    errors[key + ".match_on"].push_back("The " + key +
                                        ".match_on field is required: this collection upserts "
                                        "by a unique custom field (custom_fields.<key>).");
  }
  const std::string dataKey = key + ".data";
  const Json* data = item.find("data");
  if (data == nullptr || data->isNull()) {
    errors[dataKey].push_back(required(dataKey));
  } else if (!data->isObject()) {
    errors[dataKey].push_back("The " + dataKey + " must be an object.");
  } else {
    read.data = *data;
  }
  if (errors.size() == before) items.push_back(std::move(read));
}

// The items array of `body` with 1 to kMaxBatchItems items, or nullptr
// (with its message in `errors`).
const Json::Array* itemsOf(const Json& body, FieldErrors& errors) {
  const Json* items = body.isObject() ? body.find("items") : nullptr;
  std::string problem;
  if (items == nullptr || items->isNull()) {
    problem = required("items");
  } else if (!items->isArray()) {
    problem = "The items must be an array.";
  } else if (items->size() == 0) {
    problem = "The items must have at least 1 item.";
  } else if (items->size() > kMaxBatchItems) {
    problem = "The items may not have more than " + std::to_string(kMaxBatchItems) + " items.";
  } else {
    return &items->asArray();
  }
  errors["items"].push_back(std::move(problem));
  return nullptr;
}

}  // namespace

std::vector<BatchItem> readBatchItems(const Json& body, const std::string& upsertBy) {
  FieldErrors errors;
  // The batch's match_on is every upsert item's unless it sends its own.
  const std::string matchOn = body.isObject() ? readMatchOn(body, "match_on", errors) : "";
  std::vector<BatchItem> read;
  if (const Json::Array* array = itemsOf(body, errors)) {
    read.reserve(array->size());
    for (std::size_t i = 0; i < array->size(); ++i) {
      readItem((*array)[i], "items." + std::to_string(i), upsertBy, matchOn, read, errors);
    }
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return read;
}

}  // namespace rapport::host
