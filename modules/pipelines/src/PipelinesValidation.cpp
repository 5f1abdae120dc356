// Field rules of pipelines and stages (docs/modules/pipelines.md lists them).
#include "PipelinesValidation.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "rapport/error.h"

namespace pipelines {
namespace {

using rapport::Json;

const char* const kStagesField = "stages";

// The members of `item` under dotted keys "<prefix><key>", so that a Validator
// over the result names nested fields the API's way ("stages.0.name").
Json flatten(const Json& item, const std::string& prefix) {
  Json flat = Json::object();
  for (const auto& [key, value] : item.asObject()) flat.set(prefix + key, value);
  return flat;
}

// The rules of a stage body, on keys "<prefix>name"...; messages go to `v`.
// `nameRequired`: create (or a PATCH that sent the key: never cleared).
StageInput readStage(rapport::Validator& v, const std::string& prefix, Mode mode) {
  StageInput in;
  const auto requiredIfSent = [&](const char* field) {
    return mode == Mode::Create ? false : v.present(prefix + field);
  };
  const bool nameRequired = mode == Mode::Create || v.present(prefix + "name");
  in.name = v.string(prefix + "name", {.required = nameRequired, .min = 0, .max = 255});
  in.order = v.integer(prefix + "order", {.required = requiredIfSent("order"), .min = 1});
  in.probability = v.integer(prefix + "probability",
                             {.required = requiredIfSent("probability"), .min = 0, .max = 100});
  return in;
}

// Copies every message of `from` into `to`.
void merge(const rapport::Validator& from, rapport::Validator& to) {
  for (const auto& [field, messages] : from.errors()) {
    for (const std::string& message : messages) to.fail(field, message);
  }
}

// The `stages` array of a body, or nullptr (with a message in `v`) when it is
// not an array or has more than kMaxStages items. Absent or null: nullptr.
const Json::Array* stagesArray(rapport::Validator& v, const Json& body, bool required) {
  const Json* stages = body.find(kStagesField);
  if (stages == nullptr || stages->isNull()) {
    if (required) v.fail(kStagesField, "The stages field is required.");
    return nullptr;
  }
  if (!stages->isArray()) {
    v.fail(kStagesField, "The stages must be an array.");
    return nullptr;
  }
  if (stages->size() > kMaxStages) {
    v.fail(kStagesField,
           "The stages may not have more than " + std::to_string(kMaxStages) + " items.");
    return nullptr;
  }
  return &stages->asArray();
}

std::string itemKey(std::size_t index) {
  return std::string(kStagesField) + "." + std::to_string(index);
}

}  // namespace

PipelineInput validatePipeline(const Json& body, Mode mode) {
  rapport::Validator v(body);
  PipelineInput in;
  const bool nameRequired = mode == Mode::Create || v.present("name");
  in.name = v.string("name", {.required = nameRequired, .min = 0, .max = 255});
  in.isDefault = v.boolean("is_default", mode == Mode::Update && v.present("is_default"));
  if (mode == Mode::Create) {
    if (const Json::Array* stages = stagesArray(v, body, false)) {
      // Each stage with the key it sorts by: its order, or after every given
      // order; ties keep the array's order (stable sort).
      std::vector<std::pair<std::int64_t, StageInput>> read;
      for (std::size_t i = 0; i < stages->size(); ++i) {
        const Json& item = (*stages)[i];
        if (!item.isObject()) {
          v.fail(itemKey(i), "The " + itemKey(i) + " must be an object.");
          continue;
        }
        const Json flat = flatten(item, itemKey(i) + ".");
        rapport::Validator nested(flat);
        StageInput stage = readStage(nested, itemKey(i) + ".", Mode::Create);
        merge(nested, v);
        const std::int64_t key = stage.order.valueOr(std::numeric_limits<std::int64_t>::max());
        read.emplace_back(key, std::move(stage));
      }
      std::stable_sort(read.begin(), read.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (auto& [key, stage] : read) in.stages.push_back(std::move(stage));
    }
  }
  v.check();
  return in;
}

StageInput validateStage(const Json& body, Mode mode) {
  rapport::Validator v(body);
  StageInput in = readStage(v, "", mode);
  v.check();
  return in;
}

std::vector<StagePlace> validateReorder(const Json& body) {
  rapport::Validator v(body);
  std::vector<StagePlace> places;
  if (const Json::Array* stages = stagesArray(v, body, true)) {
    std::set<std::string> ids;
    std::set<std::int64_t> orders;
    for (std::size_t i = 0; i < stages->size(); ++i) {
      const Json& item = (*stages)[i];
      const std::string key = itemKey(i);
      if (!item.isObject()) {
        v.fail(key, "The " + key + " must be an object.");
        continue;
      }
      const Json flat = flatten(item, key + ".");
      rapport::Validator nested(flat);
      const auto id = nested.id(key + ".id", true);
      const auto order = nested.integer(key + ".order", {.required = true, .min = 1});
      merge(nested, v);
      if (id.value && !ids.insert(*id.value).second) {
        v.fail(kStagesField, "The " + key + ".id names a stage listed before.");
      }
      if (order.value && !orders.insert(*order.value).second) {
        v.fail(key + ".order", "The " + key + ".order is given to another stage too.");
      }
      if (id.value && order.value) places.push_back({*id.value, *order.value});
    }
  }
  v.check();
  std::sort(places.begin(), places.end(),
            [](const StagePlace& a, const StagePlace& b) { return a.order < b.order; });
  return places;
}

void rejectUnlessEveryStage(const Json& body, const std::vector<StagePlace>& places,
                            const std::vector<std::string>& ids) {
  const std::set<std::string> known(ids.begin(), ids.end());
  // Name the first unknown id by its index in the body.
  const Json::Array& items = body[kStagesField].asArray();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& id = items[i]["id"].asString();
    if (!known.contains(id)) {
      throw rapport::Error::invalidField(
          kStagesField, "The " + itemKey(i) + ".id is not a stage of this pipeline.");
    }
  }
  // Every entry is a known, distinct stage: fewer entries means some are missing.
  if (places.size() != known.size()) {
    throw rapport::Error::invalidField(kStagesField,
                                       "The stages must name every stage of the pipeline.");
  }
}

}  // namespace pipelines
