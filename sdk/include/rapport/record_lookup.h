// One record of a tenant, read and optionally row-locked: the statement
// behind every module's find, findForUpdate and record-directory exists.
//
//   const std::optional<rapport::Row> row =
//       rapport::selectRecord(tx, kColumns, "contacts", tx.companyId(), id,
//                             rapport::RowLock::NoKeyUpdate);
//
// Identifiers passed here (columns, table) are pasted into SQL: pass only the
// module's own constants, never input. Values are always bound.
//
// Lifetime and threading: free functions without state. The Queryable is used
// as db.h says (on the thread, and inside the callback, that received it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/records.h"

namespace rapport {

// How selectRecord locks the row it reads, on PostgreSQL. SQLite takes no row
// locks: a write transaction already holds the database's write lock.
enum class RowLock {
  None,
  KeyShare,     // FOR KEY SHARE: the row stays (no delete) until the transaction ends
  NoKeyUpdate,  // FOR NO KEY UPDATE: the row will change, but references to it may still be taken
  Update,       // FOR UPDATE: the row will change or be deleted
};

// The lock a record directory lookup asks for (records.h): KeyShare for
// RecordLock::Share, Update for RecordLock::Update, None otherwise.
RAPPORT_SDK_API RowLock rowLockFor(RecordLock lock);

// "SELECT <columns> FROM <table> WHERE company_id = ? AND id = ?" with the
// lock's clause: the tenant's record `id`, or nullopt. Every module's find,
// findForUpdate and record-directory exists are this one statement.
RAPPORT_SDK_API std::optional<Row> selectRecord(Queryable& db, std::string_view columns,
                                                std::string_view table, const std::string& tenant,
                                                const std::string& id,
                                                RowLock lock = RowLock::None);

}  // namespace rapport
