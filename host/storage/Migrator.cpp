#include "storage/Migrator.h"

#include <algorithm>
#include <map>
#include <set>
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

// Runs one migration (unless `run` is false: a squash whose effect the
// database already has) and its ledger row in one transaction. BEGIN
// IMMEDIATE on SQLite takes the write lock first, so the ledger check inside
// it is authoritative even when another process migrates the same file at
// once. Returns false when someone else applied it meanwhile.
bool runInTransaction(Queryable& db, const std::string& owner, const Migration& migration,
                      const std::string& checksum, bool run) {
  db.exec(db.dialect() == Dialect::SQLite ? "BEGIN IMMEDIATE" : "BEGIN");
  try {
    if (recordedChecksum(db, owner, migration.id)) {
      db.exec("COMMIT");
      return false;
    }
    if (run) {
      for (const std::string& statement : splitSqlStatements(sqlFor(migration, db.dialect()))) {
        db.exec(statement);
      }
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

// A set that replaces an id it still registers is the module's mistake:
// which of the two should the database have? Checked before anything runs.
void refuseReplacedStillPresent(const MigrationSet& set) {
  std::set<std::string> ids;
  for (const Migration& migration : set.migrations) ids.insert(migration.id);
  for (const Migration& migration : set.migrations) {
    for (const std::string& replaced : migration.replaces) {
      if (ids.contains(replaced)) {
        throw std::runtime_error("migration " + set.owner + "/" + migration.id + " replaces " +
                                 replaced + ", which " + set.owner +
                                 " still registers: delete the replaced migration");
      }
    }
  }
}

// The module's ids in the ledger that it neither registers nor replaces.
std::string unknownIds(const Ledger& ledger, const MigrationSet& set) {
  std::set<std::string> known;
  for (const Migration& migration : set.migrations) {
    known.insert(migration.id);
    known.insert(migration.replaces.begin(), migration.replaces.end());
  }
  std::string unknown;
  for (const auto& [key, checksum] : ledger) {
    if (key.first == set.owner && !known.contains(key.second)) {
      unknown += (unknown.empty() ? "" : ", ") + key.second;
    }
  }
  return unknown;
}

// Whether to run a migration with `replaces` (none applied: a fresh
// database) or only record it (all applied). Some but not all applied means
// the database is between two releases: the squash cannot tell what it lacks.
// A database that has none of them but has migrations of the module this
// release no longer knows (neither registered nor replaced) is older than
// the squash's history: running it would meet the tables it creates.
bool runsSquash(const Ledger& ledger, const MigrationSet& set, const Migration& migration) {
  const std::string& owner = set.owner;
  std::string missing;
  std::size_t applied = 0;
  for (const std::string& replaced : migration.replaces) {
    if (ledger.contains({owner, replaced})) {
      ++applied;
    } else {
      missing += (missing.empty() ? "" : ", ") + replaced;
    }
  }
  if (applied == 0) {
    const std::string unknown = unknownIds(ledger, set);
    if (unknown.empty()) return true;
    throw std::runtime_error("migration " + owner + "/" + migration.id +
                             " replaces migrations this database does not have, and it has "
                             "migrations of " +
                             owner + " this release no longer ships (" + unknown +
                             "): upgrade through the release that still ships them first");
  }
  if (missing.empty()) return false;
  throw std::runtime_error("migration " + owner + "/" + migration.id +
                           " replaces migrations of which this database has only some (missing: " +
                           missing + "): upgrade through the release that still ships them first");
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
    for (const MigrationSet& set : sets) refuseReplacedStillPresent(set);
    const Ledger ledger = readLedger(db);
    // Every squash decided (or refused) before anything runs.
    std::map<std::pair<std::string, std::string>, bool> squashRuns;
    for (const MigrationSet& set : sets) {
      for (const Migration& migration : set.migrations) {
        if (!migration.replaces.empty() && !ledger.contains({set.owner, migration.id})) {
          squashRuns[{set.owner, migration.id}] = runsSquash(ledger, set, migration);
        }
      }
    }
    for (const MigrationSet& set : sets) {
      for (const Migration& migration : sortedById(set.migrations)) {
        const std::string checksum = sha256Hex(sqlFor(migration, db.dialect()));
        const auto recorded = ledger.find({set.owner, migration.id});
        if (recorded != ledger.end()) {
          if (recorded->second != checksum)
            warnings_.push_back(changedWarning(set.owner, migration.id));
          continue;
        }
        const auto squash = squashRuns.find({set.owner, migration.id});
        const bool run = squash == squashRuns.end() || squash->second;
        if (runInTransaction(db, set.owner, migration, checksum, run)) {
          appliedNow.push_back({set.owner, migration.id, run});
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
    for (const Row& row : rows) out.push_back({row.str("owner"), row.str("id"), true});
  });
  return out;
}

}  // namespace rapport::host
