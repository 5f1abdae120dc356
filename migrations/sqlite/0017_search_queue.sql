-- The full-text index (FTS5) of every searchable table is written once per
-- write batch instead of once per row (docs/performance.md, "The search index
-- per batch"). FTS5 turns its pending terms into a new segment at every
-- savepoint, and the group commit runs each request's work in a savepoint of
-- its own (host/storage/GroupCommit.h): one segment per row written. From
-- here on the search triggers of a table (`<table>_search_insert`, `_update`,
-- `_delete`) only note here which rows changed, and the batch's leader writes
-- the index once for all of them, after the last member and before the
-- COMMIT (host/storage/SearchQueue.h), in the batch's transaction: a row is
-- searchable once its batch commits, as before.
--   tbl:      the searchable table (its index is `<tbl>_search`)
--   rid:      the row's seq (its rowid, the index's rowid)
--   old_text: what the index holds for the row (its search_text before the
--             batch's first change of it); NULL when it holds nothing
--   indexed:  1 when the index holds the row (an update or a delete of a row
--             written before the batch), 0 for a row created in the batch
-- The first change of a row in a batch is the one recorded (INSERT OR
-- IGNORE): later changes only change what the row holds, which the flush
-- reads from the table itself.
CREATE TABLE search_queue (
  tbl TEXT NOT NULL,
  rid INTEGER NOT NULL,
  old_text TEXT,
  indexed INTEGER NOT NULL,
  PRIMARY KEY (tbl, rid)
) WITHOUT ROWID;
