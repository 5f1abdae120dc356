-- The search index of deals written once per write batch (host migration
-- 0017, search_queue; host/storage/SearchQueue.h): the triggers of 0004_deals
-- wrote deals_search row by row, one FTS5 segment per savepoint, that is per
-- request. These only note the changed rows; the host's group commit indexes
-- them before the batch's COMMIT. The first change of a row in a batch
-- records what the index holds (nothing for a deal created in the batch).
-- The index is right already: nothing is re-indexed.
DROP TRIGGER deals_search_insert;
DROP TRIGGER deals_search_delete;
DROP TRIGGER deals_search_update;
CREATE TRIGGER deals_search_insert AFTER INSERT ON deals BEGIN
  INSERT OR IGNORE INTO search_queue (tbl, rid, old_text, indexed)
    VALUES ('deals', new.seq, NULL, 0);
END;
CREATE TRIGGER deals_search_delete AFTER DELETE ON deals BEGIN
  INSERT OR IGNORE INTO search_queue (tbl, rid, old_text, indexed)
    VALUES ('deals', old.seq, old.search_text, 1);
END;
CREATE TRIGGER deals_search_update AFTER UPDATE OF title ON deals BEGIN
  INSERT OR IGNORE INTO search_queue (tbl, rid, old_text, indexed)
    VALUES ('deals', old.seq, old.search_text, 1);
END;
