// SQL of the deals module beyond the record engine's (DealsResource.cpp):
// the pipelines' counters and the guards on deleting a pipeline or a stage.
// Every statement filters on the tenant (company_id). Tables: deals (the
// engine reads and writes it; its migrations are the module's, see
// DealsTables.h) and deal_stage_totals (kept by triggers, migrations/0006).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/json.h"

namespace deals {

// What the pipelines' GETs show of their deals (open and closed).
struct StageTotals {
  std::int64_t count = 0;
  std::int64_t value = 0;
};
// pipeline id -> stage id -> totals.
using PipelineTotals = std::map<std::string, std::map<std::string, StageTotals>>;

namespace store {

// Whether any deal of the transaction's company is in the stage (pipeline).
bool anyInStage(rapport::Tx& tx, const std::string& stageId);
bool anyInPipeline(rapport::Tx& tx, const std::string& pipelineId);
// The totals of `tenant`'s deals per stage of the pipelines, from
// deal_stage_totals (a few rows per stage, not the deals).
PipelineTotals stageTotals(rapport::Queryable& db, const std::string& tenant,
                           const std::vector<std::string>& pipelineIds);

}  // namespace store

// The record directory's augments of pipelines and stages (records.h): their
// deals_count and deals_value, as every GET of them shows.
void augmentPipelines(rapport::Queryable& db, const std::string& companyId,
                      rapport::Json::Array& pipelines);
void augmentStages(rapport::Queryable& db, const std::string& companyId,
                   rapport::Json::Array& stages);

}  // namespace deals
