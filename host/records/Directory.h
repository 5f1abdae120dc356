// The host's record directory (rapport::RecordDirectory): which module owns
// which record type, and who must hear when such a record is deleted.
//
// Reactions registered for a type whose owner is not enabled are kept but
// never run (no record of that type can be deleted).
//
// Threading: registration only during start-up; lookups from many threads.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rapport/records.h"

namespace rapport::host {

class Directory : public RecordDirectory {
 public:
  // Throws std::logic_error when two modules claim the same type.
  void addType(const std::string& type, const std::string& owner, RecordExists exists);
  void addReaction(const std::string& type, RecordDeleted reaction);
  void clear();

  bool knows(const std::string& type) const override;
  bool exists(Queryable& db, const std::string& companyId, const std::string& type,
              const std::string& id) const override;
  void deleted(Tx& tx, const std::string& type, const std::string& id) const override;

 private:
  struct Owned {
    std::string owner;
    RecordExists exists;
  };
  std::map<std::string, Owned> types_;
  std::map<std::string, std::vector<RecordDeleted>> reactions_;
};

}  // namespace rapport::host
