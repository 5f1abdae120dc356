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

void readItem(const Json& item, const std::string& key, const std::string& upsertBy,
              std::vector<BatchItem>& items, FieldErrors& errors) {
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

}  // namespace

std::vector<BatchItem> readBatchItems(const Json& body, const std::string& upsertBy) {
  FieldErrors errors;
  const Json* items = body.isObject() ? body.find("items") : nullptr;
  if (items == nullptr || items->isNull()) {
    throw Error::validation({{"items", {required("items")}}});
  }
  if (!items->isArray()) {
    throw Error::validation({{"items", {"The items must be an array."}}});
  }
  if (items->size() == 0) {
    throw Error::validation({{"items", {"The items must have at least 1 item."}}});
  }
  if (items->size() > kMaxBatchItems) {
    throw Error::validation(
        {{"items",
          {"The items may not have more than " + std::to_string(kMaxBatchItems) + " items."}}});
  }
  std::vector<BatchItem> read;
  read.reserve(items->size());
  const Json::Array& array = items->asArray();
  for (std::size_t i = 0; i < array.size(); ++i) {
    readItem(array[i], "items." + std::to_string(i), upsertBy, read, errors);
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return read;
}

}  // namespace rapport::host
