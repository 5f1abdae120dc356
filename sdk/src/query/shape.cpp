// Shaping a list's records (shape.h).
#include "shape.h"

#include <algorithm>
#include <map>
#include <set>

#include "rapport/error.h"

namespace rapport::query {
namespace {

// A member of a record's JSON by a dotted path ("related_to.type"); null when absent.
const Json* memberAt(const Json& record, const std::string& path) {
  const Json* at = &record;
  std::size_t start = 0;
  while (at && at->isObject()) {
    const std::size_t dot = path.find('.', start);
    at = at->find(path.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
  return nullptr;
}

}  // namespace

// `fields` and `include` checked against the declaration before any work.
void checkOutputs(const Compiled& self, const RecordDirectory& records, const ListRequest& list,
                  const Readable& readable) {
  FieldErrors errors;
  for (const std::string& name : list.fields) {
    if (!self.outputs.contains(name)) {
      errors["fields"].push_back("The field " + name + " is not a field of this record.");
    }
  }
  for (const std::string& name : list.include) {
    const auto hop = self.byHop.find(name);
    const bool known = hop != self.byHop.end() ? records.query(hop->second->reference) != nullptr
                                               : self.polymorphic.contains(name);
    if (!known) errors["include"].push_back("The reference " + name + " cannot be included.");
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  for (const std::string& name : list.include) {
    if (const auto hop = self.byHop.find(name); hop != self.byHop.end()) {
      readable(hop->second->reference);
    }
  }
}

// Each record gets the referenced record `name` as its owner's GET shows it
// (fetched once per distinct id, with the augments other modules add, such
// as a stage's deal counters), or null.
void embed(const Compiled& self, const RecordDirectory& records, Queryable& db,
           const std::string& tenant, const std::string& name, Json::Array& out,
           const Readable& readable) {
  using Target = std::pair<std::string, std::string>;  // type, id
  std::vector<std::optional<Target>> targets;
  targets.reserve(out.size());
  for (const Json& record : out) {
    const Json* type = nullptr;
    const Json* id = nullptr;
    std::string fixedType;
    if (const auto hop = self.byHop.find(name); hop != self.byHop.end()) {
      fixedType = hop->second->reference;
      id = memberAt(record, hop->second->name);
    } else {
      const QueryInclude& include = *self.polymorphic.at(name);
      type = memberAt(record, include.typeField);
      id = memberAt(record, include.idField);
    }
    const bool typed = !fixedType.empty() || (type && type->isString());
    if (typed && id && id->isString()) {
      targets.emplace_back(
          Target{fixedType.empty() ? type->asString() : fixedType, id->asString()});
    } else {
      targets.emplace_back();
    }
  }
  // Fetched per type, then augmented per type in one call each.
  std::map<std::string, std::vector<std::string>> idsByType;
  for (const auto& target : targets) {
    if (!target || !records.knows(target->first)) continue;
    auto& ids = idsByType[target->first];
    if (std::find(ids.begin(), ids.end(), target->second) == ids.end()) {
      ids.push_back(target->second);
    }
  }
  for (const auto& entry : idsByType) readable(entry.first);
  std::map<Target, Json> found;
  for (const auto& [type, ids] : idsByType) {
    Json::Array fetched;
    std::vector<std::string> fetchedIds;
    for (const std::string& id : ids) {
      if (auto record = records.fetch(db, tenant, type, id, RecordLock::None)) {
        fetched.push_back(std::move(*record));
        fetchedIds.push_back(id);
      }
    }
    records.augment(db, tenant, type, fetched);
    for (std::size_t i = 0; i < fetched.size(); ++i) {
      found[{type, fetchedIds[i]}] = std::move(fetched[i]);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto it = targets[i] ? found.find(*targets[i]) : found.end();
    out[i].set(name, it != found.end() ? it->second : Json());
  }
}

// Only `fields`, id and the included references.
void project(const ListRequest& list, Json::Array& out) {
  if (list.fields.empty()) return;
  std::set<std::string> kept(list.fields.begin(), list.fields.end());
  kept.insert("id");
  kept.insert(list.include.begin(), list.include.end());
  for (Json& record : out) {
    Json::Object shaped;
    for (auto& member : record.asObject()) {
      if (kept.contains(member.first)) shaped.push_back(std::move(member));
    }
    record = Json(std::move(shaped));
  }
}

}  // namespace rapport::query
