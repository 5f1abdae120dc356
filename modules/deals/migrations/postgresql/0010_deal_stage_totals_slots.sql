-- deal_stage_totals' slot chosen among the (pipeline, stage)'s slot rows that
-- no other transaction holds, as the listing tables' counts choose theirs
-- since SDK 10.1 (rapport/listing_tables.h): the first free one (FOR UPDATE
-- SKIP LOCKED; one this transaction holds already counts as free to it), or,
-- when every slot row is held or there is none, a new row at slot
-- pg_backend_pid() % 32768 (a random slot when that row exists and is held).
-- Concurrent writers of one stage then never queue on a totals row (0006's
-- one of 8 slots at random made 32 writers queue on 8 rows); a collision of
-- two new slots (rare) waits and still counts right. A slot row that comes
-- back to 0 deals and 0 cents is still removed. The slot parameter of 0006's
-- helper goes: the helper chooses.
CREATE FUNCTION deal_stage_totals_change(row_company TEXT, row_pipeline TEXT, row_stage TEXT,
                                         deals BIGINT, cents BIGINT)
RETURNS void AS $$
DECLARE
  chosen SMALLINT;
  left_deals BIGINT;
  left_cents BIGINT;
BEGIN
  SELECT slot INTO chosen FROM deal_stage_totals
    WHERE company_id = row_company AND pipeline_id = row_pipeline AND stage_id = row_stage
    LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF FOUND THEN
    UPDATE deal_stage_totals
      SET deals_count = deals_count + deals, deals_value = deals_value + cents
      WHERE company_id = row_company AND pipeline_id = row_pipeline AND stage_id = row_stage
        AND slot = chosen
      RETURNING deals_count, deals_value INTO left_deals, left_cents;
  ELSE
    chosen := pg_backend_pid() % 32768;
    IF EXISTS (SELECT 1 FROM deal_stage_totals
               WHERE company_id = row_company AND pipeline_id = row_pipeline
                 AND stage_id = row_stage AND slot = chosen) THEN
      chosen := floor(random() * 32768);
    END IF;
    INSERT INTO deal_stage_totals AS t
        (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
      VALUES (row_company, row_pipeline, row_stage, chosen, deals, cents)
      ON CONFLICT (company_id, pipeline_id, stage_id, slot) DO UPDATE
        SET deals_count = t.deals_count + deals, deals_value = t.deals_value + cents
      RETURNING deals_count, deals_value INTO left_deals, left_cents;
  END IF;
  IF left_deals = 0 AND left_cents = 0 THEN
    DELETE FROM deal_stage_totals
      WHERE company_id = row_company AND pipeline_id = row_pipeline AND stage_id = row_stage
        AND slot = chosen;
  END IF;
END;
$$ LANGUAGE plpgsql;

-- 0006's trigger function, each change through the new helper. An update
-- still changes the two (pipeline, stage)s in the order of (pipeline_id,
-- stage_id) (0006: two moves in opposite directions), which matters now
-- only when both take new slot rows that collide.
CREATE OR REPLACE FUNCTION deal_stage_totals_track() RETURNS trigger AS $$
DECLARE
  old_open BOOLEAN := FALSE;
  new_open BOOLEAN := FALSE;
BEGIN
  IF TG_OP <> 'INSERT' THEN old_open := OLD.status = 'open'; END IF;
  IF TG_OP <> 'DELETE' THEN new_open := NEW.status = 'open'; END IF;
  IF TG_OP = 'UPDATE' THEN
    IF OLD.status = NEW.status AND OLD.pipeline_id = NEW.pipeline_id
       AND OLD.stage_id = NEW.stage_id AND OLD.value = NEW.value THEN
      RETURN NULL;
    END IF;
    IF new_open AND (NEW.pipeline_id, NEW.stage_id) < (OLD.pipeline_id, OLD.stage_id) THEN
      PERFORM deal_stage_totals_change(NEW.company_id, NEW.pipeline_id, NEW.stage_id, 1, NEW.value);
      new_open := FALSE;
    END IF;
  END IF;
  IF old_open THEN
    PERFORM deal_stage_totals_change(OLD.company_id, OLD.pipeline_id, OLD.stage_id, -1, -OLD.value);
  END IF;
  IF new_open THEN
    PERFORM deal_stage_totals_change(NEW.company_id, NEW.pipeline_id, NEW.stage_id, 1, NEW.value);
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

DROP FUNCTION deal_stage_totals_add(TEXT, TEXT, TEXT, SMALLINT, BIGINT, BIGINT);
