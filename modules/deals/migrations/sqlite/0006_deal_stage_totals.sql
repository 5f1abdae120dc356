-- replaces: 0003_deal_stage_totals
-- 0003_deal_stage_totals, unchanged, moved after the squashed deals table
-- (0004_deals) that its triggers are on.

-- deals_count and deals_value of OPEN deals per pipeline and stage, shown on
-- the pipelines module's records through Registry::augment("pipeline")
-- (docs/modules/deals.md, "Pipeline counters"). The slotted-count shape of
-- contact_counts; SQLite has one writer at a time: one slot (0). A row that
-- comes back to 0 deals and 0 cents is removed.
CREATE TABLE deal_stage_totals (
  company_id TEXT NOT NULL,
  pipeline_id TEXT NOT NULL,
  stage_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  deals_count BIGINT NOT NULL,
  deals_value BIGINT NOT NULL,
  PRIMARY KEY (company_id, pipeline_id, stage_id, slot)
);
-- An open deal inserted adds itself.
CREATE TRIGGER deal_stage_totals_insert AFTER INSERT ON deals WHEN new.status = 'open' BEGIN
  INSERT INTO deal_stage_totals (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
    VALUES (new.company_id, new.pipeline_id, new.stage_id, 0, 1, new.value)
    ON CONFLICT (company_id, pipeline_id, stage_id, slot)
    DO UPDATE SET deals_count = deals_count + 1, deals_value = deals_value + excluded.deals_value;
END;
-- An open deal deleted subtracts itself.
CREATE TRIGGER deal_stage_totals_delete AFTER DELETE ON deals WHEN old.status = 'open' BEGIN
  INSERT INTO deal_stage_totals (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
    VALUES (old.company_id, old.pipeline_id, old.stage_id, 0, -1, -old.value)
    ON CONFLICT (company_id, pipeline_id, stage_id, slot)
    DO UPDATE SET deals_count = deals_count - 1, deals_value = deals_value + excluded.deals_value;
  DELETE FROM deal_stage_totals
    WHERE company_id = old.company_id AND pipeline_id = old.pipeline_id
      AND stage_id = old.stage_id AND slot = 0 AND deals_count = 0 AND deals_value = 0;
END;
-- An update of what the totals depend on: the old row out if it was open,
-- the new row in if it is open.
CREATE TRIGGER deal_stage_totals_update_old
  AFTER UPDATE OF status, stage_id, pipeline_id, value ON deals
  WHEN old.status = 'open' BEGIN
  INSERT INTO deal_stage_totals (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
    VALUES (old.company_id, old.pipeline_id, old.stage_id, 0, -1, -old.value)
    ON CONFLICT (company_id, pipeline_id, stage_id, slot)
    DO UPDATE SET deals_count = deals_count - 1, deals_value = deals_value + excluded.deals_value;
  DELETE FROM deal_stage_totals
    WHERE company_id = old.company_id AND pipeline_id = old.pipeline_id
      AND stage_id = old.stage_id AND slot = 0 AND deals_count = 0 AND deals_value = 0;
END;
CREATE TRIGGER deal_stage_totals_update_new
  AFTER UPDATE OF status, stage_id, pipeline_id, value ON deals
  WHEN new.status = 'open' BEGIN
  INSERT INTO deal_stage_totals (company_id, pipeline_id, stage_id, slot, deals_count, deals_value)
    VALUES (new.company_id, new.pipeline_id, new.stage_id, 0, 1, new.value)
    ON CONFLICT (company_id, pipeline_id, stage_id, slot)
    DO UPDATE SET deals_count = deals_count + 1, deals_value = deals_value + excluded.deals_value;
  DELETE FROM deal_stage_totals
    WHERE company_id = new.company_id AND pipeline_id = new.pipeline_id
      AND stage_id = new.stage_id AND slot = 0 AND deals_count = 0 AND deals_value = 0;
END;
