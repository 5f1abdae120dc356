// SQL of the deals module beyond the record engine's: the pipelines'
// counters and the deletion guards. Statements use "?" on both engines.
#include "DealsStore.h"

namespace deals {
namespace store {

using rapport::Queryable;
using rapport::Tx;

bool anyInStage(Tx& tx, const std::string& stageId) {
  return !tx.query("SELECT 1 FROM deals WHERE company_id = ? AND stage_id = ? LIMIT 1",
                   {tx.companyId(), stageId})
              .empty();
}

bool anyInPipeline(Tx& tx, const std::string& pipelineId) {
  return !tx.query("SELECT 1 FROM deals WHERE company_id = ? AND pipeline_id = ? LIMIT 1",
                   {tx.companyId(), pipelineId})
              .empty();
}

PipelineTotals stageTotals(Queryable& db, const std::string& tenant,
                           const std::vector<std::string>& pipelineIds) {
  PipelineTotals totals;
  if (pipelineIds.empty()) return totals;
  std::string sql =
      "SELECT pipeline_id, stage_id, CAST(SUM(deals_count) AS BIGINT) AS deals_count, "
      "CAST(SUM(deals_value) AS BIGINT) AS deals_value FROM deal_stage_totals "
      "WHERE company_id = ? AND pipeline_id IN (";
  rapport::Params params{tenant};
  for (std::size_t i = 0; i < pipelineIds.size(); ++i) {
    sql += i == 0 ? "?" : ", ?";
    params.emplace_back(pipelineIds[i]);
  }
  sql += ") GROUP BY pipeline_id, stage_id";
  for (const rapport::Row& row : db.query(sql, params)) {
    totals[row.str("pipeline_id")][row.str("stage_id")] =
        StageTotals{.count = row.i64("deals_count"), .value = row.i64("deals_value")};
  }
  return totals;
}

}  // namespace store

using rapport::Json;

void augmentPipelines(rapport::Queryable& db, const std::string& companyId,
                      Json::Array& pipelines) {
  std::vector<std::string> ids;
  for (const Json& pipeline : pipelines) {
    if (pipeline["id"].isString()) ids.push_back(pipeline["id"].asString());
  }
  const PipelineTotals totals = store::stageTotals(db, companyId, ids);
  static const std::map<std::string, StageTotals> kNone;
  for (Json& pipeline : pipelines) {
    if (!pipeline["id"].isString()) continue;
    const auto found = totals.find(pipeline["id"].asString());
    const std::map<std::string, StageTotals>& stages =
        found == totals.end() ? kNone : found->second;
    StageTotals sum;
    for (const auto& [stageId, stageTotals] : stages) {
      sum.count += stageTotals.count;
      sum.value += stageTotals.value;
    }
    pipeline.set("deals_count", sum.count);
    pipeline.set("deals_value", sum.value);
    Json* stageList = pipeline.find("stages");
    if (stageList == nullptr || !stageList->isArray()) continue;
    for (Json& stage : stageList->asArray()) {
      if (!stage["id"].isString()) continue;
      const auto own = stages.find(stage["id"].asString());
      const StageTotals t = own == stages.end() ? StageTotals{} : own->second;
      stage.set("deals_count", t.count);
      stage.set("deals_value", t.value);
    }
  }
}

void augmentStages(rapport::Queryable& db, const std::string& companyId, Json::Array& stages) {
  std::vector<std::string> pipelineIds;
  for (const Json& stage : stages) {
    if (stage["pipeline_id"].isString()) pipelineIds.push_back(stage["pipeline_id"].asString());
  }
  const PipelineTotals totals = store::stageTotals(db, companyId, pipelineIds);
  for (Json& stage : stages) {
    if (!stage["pipeline_id"].isString() || !stage["id"].isString()) continue;
    StageTotals own;
    if (const auto pipeline = totals.find(stage["pipeline_id"].asString());
        pipeline != totals.end()) {
      if (const auto found = pipeline->second.find(stage["id"].asString());
          found != pipeline->second.end()) {
        own = found->second;
      }
    }
    stage.set("deals_count", own.count);
    stage.set("deals_value", own.value);
  }
}

}  // namespace deals
