#include "storage/SearchQueue.h"

#include <string>

#include "log/Log.h"
#include "storage/Connection.h"

namespace rapport::host {
namespace {

// The tables with notes, each with whether it and its index exist (a note
// of a table dropped since would otherwise fail every batch after it).
constexpr const char* kQueuedTables =
    "SELECT q.tbl AS tbl, (SELECT count(*) FROM sqlite_master m WHERE m.type = 'table' "
    "AND m.name IN (q.tbl, q.tbl || '_search')) AS found FROM (SELECT DISTINCT tbl FROM "
    "search_queue) q";
constexpr const char* kDropNotes = "DELETE FROM search_queue WHERE tbl = ?";

// A table name the record engine or a module could have declared: the
// statements below are built from it.
bool plainIdentifier(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (!letter && (i == 0 || c < '0' || c > '9')) return false;
  }
  return true;
}

void flushTable(Connection& connection, const std::string& table) {
  const std::string index = table + "_search";
  const Params tbl{Value(table)};
  connection.run("INSERT INTO " + index + " (" + index +
                     ", rowid, search_text) SELECT 'delete', rid, old_text FROM search_queue "
                     "WHERE tbl = ? AND indexed = 1",
                 tbl);
  connection.run("INSERT INTO " + index + " (rowid, search_text) SELECT r.seq, r.search_text " +
                     "FROM search_queue q JOIN " + table + " r ON r.seq = q.rid WHERE q.tbl = ?",
                 tbl);
  connection.run(kDropNotes, tbl);
}

}  // namespace

bool SearchQueue::present(Connection& connection) {
  if (present_.load(std::memory_order_relaxed)) return true;
  const Result found = connection.run(
      "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'search_queue'", {});
  if (found.empty()) return false;
  present_.store(true, std::memory_order_relaxed);
  return true;
}

void SearchQueue::flush(Connection& connection) {
  if (!present(connection)) return;
  for (const Row& row : connection.run(kQueuedTables, {})) {
    const std::string table = row.str("tbl");
    if (plainIdentifier(table) && row.i64("found") == 2) {
      flushTable(connection, table);
      continue;
    }
    // Only a trigger of a table since dropped, or a hand-made row, gets
    // here: nothing is left to index for it.
    log::warn("search_queue: notes of a table without a search index dropped", {{"table", table}});
    connection.run(kDropNotes, {Value(table)});
  }
}

}  // namespace rapport::host
