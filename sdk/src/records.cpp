// One record, read and locked: selectRecord and the lock clauses behind it
// (record_lookup.h), and the clause of a record directory lookup (records.h).
#include "rapport/records.h"

#include "rapport/record_lookup.h"

namespace rapport {
namespace {

std::string_view clauseOf(Dialect dialect, RowLock lock) {
  if (dialect != Dialect::PostgreSQL) return "";
  switch (lock) {
    case RowLock::None:
      return "";
    case RowLock::KeyShare:
      return " FOR KEY SHARE";
    case RowLock::NoKeyUpdate:
      return " FOR NO KEY UPDATE";
    case RowLock::Update:
      return " FOR UPDATE";
  }
  return "";
}

}  // namespace

RowLock rowLockFor(RecordLock lock) {
  // KEY SHARE rather than SHARE: a referenced record can still be updated
  // (a company renamed while a contact links to it); only its deletion, or a
  // change of its key, waits.
  switch (lock) {
    case RecordLock::Share:
      return RowLock::KeyShare;
    case RecordLock::Update:
      return RowLock::Update;
    case RecordLock::None:
      break;
  }
  return RowLock::None;
}

std::string_view lockClause(Dialect dialect, RecordLock lock) {
  return clauseOf(dialect, rowLockFor(lock));
}

std::optional<Row> selectRecord(Queryable& db, std::string_view columns, std::string_view table,
                                const std::string& tenant, const std::string& id, RowLock lock) {
  std::string sql = "SELECT ";
  sql.append(columns).append(" FROM ").append(table).append(" WHERE company_id = ? AND id = ?");
  sql.append(clauseOf(db.dialect(), lock));
  Result found = db.query(sql, {tenant, id});
  if (found.empty()) return std::nullopt;
  return std::move(found.rows.front());
}

}  // namespace rapport
