#include "records/Directory.h"

#include <stdexcept>

namespace rapport::host {

void Directory::addType(const std::string& type, const std::string& owner, RecordExists exists) {
  auto [it, inserted] = types_.emplace(type, Owned{owner, std::move(exists)});
  if (!inserted) {
    throw std::logic_error("record type '" + type + "' is registered by both module '" +
                           it->second.owner + "' and module '" + owner + "'");
  }
}

void Directory::addReaction(const std::string& type, RecordDeleted reaction) {
  reactions_[type].push_back(std::move(reaction));
}

void Directory::clear() {
  types_.clear();
  reactions_.clear();
}

bool Directory::knows(const std::string& type) const {
  return types_.count(type) > 0;
}

bool Directory::exists(Queryable& db, const std::string& companyId, const std::string& type,
                       const std::string& id) const {
  auto it = types_.find(type);
  return it != types_.end() && it->second.exists(db, companyId, id);
}

void Directory::deleted(Tx& tx, const std::string& type, const std::string& id) const {
  auto it = reactions_.find(type);
  if (it == reactions_.end()) return;
  for (const auto& reaction : it->second) reaction(tx, id);
}

}  // namespace rapport::host
