// The host's record directory (rapport::RecordDirectory): which module owns
// which record type, who may refuse its deletion, who must hear when one is
// deleted, and who adds fields to it when it is shown.
//
// Guards, reactions and augments registered for a type whose owner is not
// enabled are kept but never run (no record of that type exists).
//
// Threading: registration only during start-up; lookups from many threads.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rapport/records.h"

namespace rapport::host {

// Where a record type's own route is (RecordType::path).
struct RecordPath {
  std::string type;  // "contact"
  std::string path;  // "/crm/contacts/{id}", without the version prefix
};

class Directory : public RecordDirectory {
 public:
  // Throws std::logic_error when two modules claim the same type, when
  // `record` has no exists check, or a path without a fetch.
  void addType(const std::string& type, const std::string& owner, RecordType record);
  void addGuard(const std::string& type, RecordDeletionGuard guard);
  void addReaction(const std::string& type, RecordDeleted reaction);
  void addAugment(const std::string& type, RecordAugment augment);
  void clear();
  // The types that have a path, sorted by type.
  std::vector<RecordPath> paths() const;

  bool knows(const std::string& type) const override;
  bool exists(Queryable& db, const std::string& companyId, const std::string& type,
              const std::string& id) const override;
  bool lockForReference(Tx& tx, const std::string& type, const std::string& id) const override;
  std::optional<Json> fetch(Queryable& db, const std::string& companyId, const std::string& type,
                            const std::string& id, RecordLock lock) const override;
  const RecordQuery* query(const std::string& type) const override;
  void augment(Queryable& db, const std::string& companyId, const std::string& type,
               Json::Array& records) const override;
  void deleted(Tx& tx, const std::string& type, const std::string& id) const override;
  std::string scope(const std::string& type) const override;

 private:
  struct Owned {
    std::string owner;
    RecordType record;
  };
  const Owned* find(const std::string& type) const;

  std::map<std::string, Owned> types_;
  std::map<std::string, std::vector<RecordDeletionGuard>> guards_;
  std::map<std::string, std::vector<RecordDeleted>> reactions_;
  std::map<std::string, std::vector<RecordAugment>> augments_;
};

}  // namespace rapport::host
