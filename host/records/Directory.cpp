#include "records/Directory.h"

#include <stdexcept>

#include "rapport/error.h"

namespace rapport::host {

void Directory::addType(const std::string& type, const std::string& owner, RecordType record) {
  if (!record.exists) {
    throw std::logic_error("record type '" + type + "' of module '" + owner +
                           "' has no exists check");
  }
  if ((!record.path.empty() || record.query) && !record.fetch) {
    throw std::logic_error("record type '" + type + "' of module '" + owner +
                           "' has a path or a query but no fetch");
  }
  auto [it, inserted] = types_.emplace(type, Owned{owner, std::move(record)});
  if (!inserted) {
    throw std::logic_error("record type '" + type + "' is registered by both module '" +
                           it->second.owner + "' and module '" + owner + "'");
  }
}

void Directory::addGuard(const std::string& type, RecordDeletionGuard guard) {
  guards_[type].push_back(std::move(guard));
}

void Directory::addReaction(const std::string& type, RecordDeleted reaction) {
  reactions_[type].push_back(std::move(reaction));
}

void Directory::addAugment(const std::string& type, RecordAugment augment) {
  augments_[type].push_back(std::move(augment));
}

void Directory::clear() {
  types_.clear();
  guards_.clear();
  reactions_.clear();
  augments_.clear();
}

std::vector<RecordPath> Directory::paths() const {
  std::vector<RecordPath> out;
  for (const auto& [type, owned] : types_) {
    if (!owned.record.path.empty()) out.push_back({type, owned.record.path});
  }
  return out;
}

const Directory::Owned* Directory::find(const std::string& type) const {
  auto it = types_.find(type);
  return it == types_.end() ? nullptr : &it->second;
}

bool Directory::knows(const std::string& type) const {
  return find(type) != nullptr;
}

bool Directory::exists(Queryable& db, const std::string& companyId, const std::string& type,
                       const std::string& id) const {
  const Owned* owned = find(type);
  return owned != nullptr && owned->record.exists(db, companyId, id, RecordLock::None);
}

bool Directory::lockForReference(Tx& tx, const std::string& type, const std::string& id) const {
  const Owned* owned = find(type);
  return owned != nullptr && owned->record.exists(tx, tx.companyId(), id, RecordLock::Share);
}

std::optional<Json> Directory::fetch(Queryable& db, const std::string& companyId,
                                     const std::string& type, const std::string& id,
                                     RecordLock lock) const {
  const Owned* owned = find(type);
  if (owned == nullptr) return std::nullopt;
  if (!owned->record.fetch) {
    throw std::logic_error("record type '" + type + "' of module '" + owned->owner +
                           "' offers no fetch");
  }
  return owned->record.fetch(db, companyId, id, lock);
}

const RecordQuery* Directory::query(const std::string& type) const {
  const Owned* owned = find(type);
  return owned != nullptr && owned->record.query ? &*owned->record.query : nullptr;
}

std::string Directory::scope(const std::string& type) const {
  const Owned* owned = find(type);
  return owned != nullptr ? owned->record.scope : std::string();
}

void Directory::augment(Queryable& db, const std::string& companyId, const std::string& type,
                        Json::Array& records) const {
  if (records.empty()) return;
  auto it = augments_.find(type);
  if (it == augments_.end()) return;
  for (const auto& add : it->second) add(db, companyId, records);
}

void Directory::deleted(Tx& tx, const std::string& type, const std::string& id) const {
  if (auto it = guards_.find(type); it != guards_.end()) {
    for (const auto& guard : it->second) {
      if (std::optional<std::string> refusal = guard(tx, id)) {
        throw rapport::Error::conflict(std::move(*refusal));
      }
    }
  }
  if (auto it = reactions_.find(type); it != reactions_.end()) {
    for (const auto& reaction : it->second) reaction(tx, id);
  }
}

}  // namespace rapport::host
