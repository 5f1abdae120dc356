// SQLite's full-text search index, written once per write batch.
//
// Every searchable table `<t>` has an FTS5 external-content index
// `<t>_search` (trigram tokenizer). FTS5 turns its pending terms into a new
// segment at every savepoint and statement subtransaction, and the group
// commit runs each request's work in a savepoint of its own
// (GroupCommit.h): an index written by row triggers cost one segment per row
// (43.6 µs a row against 14.8 µs written once per batch, measured by the
// lead). So since host migration 0017 the search triggers of `<t>` only note
// the changed rows in `search_queue` (migrations/sqlite/0017_search_queue.sql:
// the row's seq, and what the index holds for it: its search_text before the
// batch's first change of it, or nothing for a row created in the batch), and
// flush() writes the index for all of them in one statement per table:
//   1. INSERT INTO <t>_search(<t>_search, rowid, search_text)
//        SELECT 'delete', rid, old_text ... WHERE indexed = 1
//      takes out what the index holds for each noted row;
//   2. INSERT INTO <t>_search(rowid, search_text) SELECT r.seq, r.search_text
//        FROM search_queue q JOIN <t> r ON r.seq = q.rid
//      puts in what each noted row holds now (nothing for a deleted row);
//   3. DELETE FROM search_queue WHERE tbl = ?.
// A row noted several times in a batch (created then updated, updated twice,
// deleted and its seq taken again) ends right: the first note says what the
// index holds, the table says what it must hold.
//
// GroupCommit's leader runs flush() in the batch's transaction after the last
// member's RELEASE and before the COMMIT, outside every savepoint: a member
// rolled back took its notes with it, and a row is searchable once its batch
// commits, as before. A failing flush fails the whole batch (nothing is
// committed; every member gets the error). Writes outside a batch (the
// migrations) leave their notes for the next flush: SqlDatabaseImpl flushes
// once more after migrating, and every batch flushes whatever is queued.
//
// Inside a batch, before its flush, the index is the one of the last commit:
// a search run by a write transaction does not see that batch's own changes
// (the rows read through the index are the current ones).
//
// PostgreSQL needs none of this (its GIN index is PostgreSQL's own).
//
// Threading: flush() runs on the writer's connection only; the object itself
// is thread-safe.
#pragma once

#include <atomic>

namespace rapport::host {

class Connection;

class SearchQueue {
 public:
  // Writes the index rows of everything queued, in the connection's open
  // transaction. A no-op on a database without search_queue (one the host's
  // migrations have not reached). Throws DbError; the transaction must then
  // be rolled back.
  void flush(Connection& connection);

 private:
  bool present(Connection& connection);

  // Once search_queue is seen it stays (no migration drops it).
  std::atomic<bool> present_ = false;
};

}  // namespace rapport::host
