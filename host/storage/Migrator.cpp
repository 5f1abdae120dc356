#include "storage/Migrator.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "rapport/ids.h"
#include "rapport/time.h"

namespace rapport::host {
namespace {

// Portable DDL: the same text works on both engines.
constexpr const char* kCreateLedger =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "owner TEXT NOT NULL, id TEXT NOT NULL, checksum TEXT NOT NULL, "
    "applied_at BIGINT NOT NULL, PRIMARY KEY (owner, id))";

using Ledger = std::map<std::pair<std::string, std::string>, std::string>;  // -> checksum

const std::string& sqlFor(const Migration& migration, Dialect dialect) {
  return dialect == Dialect::SQLite ? migration.sqlite : migration.postgresql;
}

std::vector<Migration> sortedById(std::vector<Migration> migrations) {
  std::stable_sort(migrations.begin(), migrations.end(),
                   [](const Migration& a, const Migration& b) { return a.id < b.id; });
  return migrations;
}

Ledger readLedger(Queryable& db) {
  Ledger ledger;
  for (const Row& row : db.query("SELECT owner, id, checksum FROM schema_migrations")) {
    ledger[{row.str("owner"), row.str("id")}] = row.str("checksum");
  }
  return ledger;
}

std::optional<std::string> recordedChecksum(Queryable& db, const std::string& owner,
                                            const std::string& id) {
  const Result found =
      db.query("SELECT checksum FROM schema_migrations WHERE owner = ? AND id = ?", {owner, id});
  if (found.empty()) return std::nullopt;
  return found.front().str("checksum");
}

void rollbackQuietly(Queryable& db) {
  try {
    db.exec("ROLLBACK");
  } catch (const std::exception&) {
    // Already failing; withMigrationLock closes a session that cannot recover.
  }
}

// Runs one migration and its ledger row in one transaction. BEGIN IMMEDIATE
// on SQLite takes the write lock first, so the ledger check inside it is
// authoritative even when another process migrates the same file at once.
// Returns false when someone else applied it meanwhile.
bool runInTransaction(Queryable& db, const std::string& owner, const Migration& migration,
                      const std::string& checksum) {
  db.exec(db.dialect() == Dialect::SQLite ? "BEGIN IMMEDIATE" : "BEGIN");
  try {
    if (recordedChecksum(db, owner, migration.id)) {
      db.exec("COMMIT");
      return false;
    }
    for (const std::string& statement : splitSqlStatements(sqlFor(migration, db.dialect()))) {
      db.exec(statement);
    }
    db.exec("INSERT INTO schema_migrations (owner, id, checksum, applied_at) VALUES (?, ?, ?, ?)",
            {owner, migration.id, checksum, nowMicros()});
    db.exec("COMMIT");
    return true;
  } catch (const std::exception& e) {
    rollbackQuietly(db);
    throw std::runtime_error("migration " + owner + "/" + migration.id + " failed: " + e.what());
  }
}

std::string changedWarning(const std::string& owner, const std::string& id) {
  return "migration " + owner + "/" + id +
         " changed after it was applied (checksum differs); it is not run again";
}

}  // namespace

std::vector<AppliedMigration> Migrator::apply(const std::vector<MigrationSet>& sets) {
  std::vector<AppliedMigration> appliedNow;
  warnings_.clear();
  db_.withMigrationLock([&](Queryable& db) {
    db.exec(kCreateLedger);
    const Ledger ledger = readLedger(db);
    for (const MigrationSet& set : sets) {
      for (const Migration& migration : sortedById(set.migrations)) {
        const std::string checksum = sha256Hex(sqlFor(migration, db.dialect()));
        const auto recorded = ledger.find({set.owner, migration.id});
        if (recorded != ledger.end()) {
          if (recorded->second != checksum)
            warnings_.push_back(changedWarning(set.owner, migration.id));
          continue;
        }
        if (runInTransaction(db, set.owner, migration, checksum)) {
          appliedNow.push_back({set.owner, migration.id});
        }
      }
    }
  });
  return appliedNow;
}

std::vector<AppliedMigration> Migrator::applied() {
  std::vector<AppliedMigration> out;
  db_.withMigrationLock([&](Queryable& db) {
    db.exec(kCreateLedger);
    const Result rows =
        db.query("SELECT owner, id FROM schema_migrations ORDER BY applied_at, owner, id");
    for (const Row& row : rows) out.push_back({row.str("owner"), row.str("id")});
  });
  return out;
}

}  // namespace rapport::host
