// Applies migrations and records them in the ledger table
//   schema_migrations(owner TEXT, id TEXT, checksum TEXT, applied_at BIGINT,
//                     PRIMARY KEY(owner, id))
// owner is "host" or the module name. Each migration runs in its own
// transaction with its ledger row. Several instances starting at once on
// PostgreSQL serialise on an advisory lock, so each migration runs exactly
// once. A recorded migration whose text changed is logged as a warning and
// not run again. A migration that replaces earlier ones (Migration::replaces,
// a module's squash) runs on a fresh database and is only recorded on one
// where the ids it replaces are applied (rapport/db.h).
#pragma once

#include <string>
#include <vector>

#include "rapport/db.h"
#include "storage/SqlDatabase.h"

namespace rapport::host {

struct MigrationSet {
  std::string owner;  // "host" or a module name
  std::vector<Migration> migrations;
};

struct AppliedMigration {
  std::string owner;
  std::string id;
  // False when it was recorded without running: the ids it replaces were
  // already applied (only in apply()'s answer; applied() leaves it true).
  bool ran = true;
};

class Migrator {
 public:
  explicit Migrator(SqlDatabase& db) : db_(db) {}
  // Applies every pending migration of every set, in the given set order and
  // id order within a set. Returns what was applied (or, for a squash,
  // recorded) now. Throws std::runtime_error naming owner and id when a
  // statement fails, and before running anything when a set replaces an id
  // it still holds or the ledger holds only some ids a migration replaces.
  std::vector<AppliedMigration> apply(const std::vector<MigrationSet>& sets);
  // Everything in the ledger.
  std::vector<AppliedMigration> applied();
  // Recorded migrations whose text changed since (found by apply()), one
  // message each, for the caller to log.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  SqlDatabase& db_;
  std::vector<std::string> warnings_;
};

}  // namespace rapport::host
