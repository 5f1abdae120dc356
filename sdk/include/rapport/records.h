// The record directory: how one module checks or unlinks another module's
// records without including its headers.
//
// A module that owns a record type registers it (Registry::recordType) with a
// function that tells whether an id exists in a company. Modules that keep
// references to that type register a reaction (Registry::onRecordDeleted)
// that clears their references; the owning module calls deleted() inside its
// delete transaction, so the record and every reference go in one commit.
//
// Built in: "user" (exists = the user is a member of the company).
//
// Threading: shared by all threads; registration happens only at start-up.
#pragma once

#include <functional>
#include <string>

#include "rapport/db.h"

namespace rapport {

// True when the record `id` exists in `companyId`.
using RecordExists =
    std::function<bool(Queryable& db, const std::string& companyId, const std::string& id)>;
// Clears references to a deleted record; runs in the deleting transaction.
using RecordDeleted = std::function<void(Tx& tx, const std::string& id)>;

class RAPPORT_VISIBLE RecordDirectory {
 public:
  virtual ~RecordDirectory() = default;
  // True when an enabled module owns record type `type` ("contact", "company"...).
  virtual bool knows(const std::string& type) const = 0;
  // True when the record exists in the company. False for unknown types.
  virtual bool exists(Queryable& db, const std::string& companyId, const std::string& type,
                      const std::string& id) const = 0;
  // Runs every onRecordDeleted reaction for (type, id) inside `tx`.
  virtual void deleted(Tx& tx, const std::string& type, const std::string& id) const = 0;
};

}  // namespace rapport
