// SQL of the pipelines module, and nothing else: every statement filters on
// the tenant (company_id). Tables: pipelines, pipeline_stages (position is the
// API's `order`), pipeline_tenants (the per-tenant lock of the default rules)
// and pipeline_counts (the list's total); see migrations/ and
// PipelinesTables.h (the count table is the SDK's listing table).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/list.h"
#include "rapport/pagination.h"
#include "rapport/records.h"

namespace pipelines {

// A stage's place in its pipeline, as stored.
struct StageSlot {
  std::string id;
  std::int64_t position = 0;
};

namespace store {

// API sort fields (sort=name, -created_at...) and the SQL that orders by them.
const std::map<std::string, std::string>& sortColumns();
// The default order: newest first.
rapport::Sort defaultSort();

// --- Reads (any Queryable) --------------------------------------------------

// The pipeline's row, or nullopt when `id` is not a pipeline of `tenant`;
// with RecordLock::Share (the directory's fetch for a reference about to be
// written) key-share-locked on PostgreSQL in the same statement.
std::optional<rapport::Row> findPipeline(rapport::Queryable& db, const std::string& tenant,
                                         const std::string& id,
                                         rapport::RecordLock lock = rapport::RecordLock::None);
// The stages of the given pipelines of `tenant`, ordered by pipeline then
// position (columns as stageJson reads them).
rapport::Result stagesOf(rapport::Queryable& db, const std::string& tenant,
                         const std::vector<std::string>& pipelineIds);
// The stage's row (whatever its pipeline), or nullopt when `id` is not a
// stage of `tenant`; `lock` as findPipeline's (a deal's create and move
// read and lock the stage in one statement).
std::optional<rapport::Row> findStage(rapport::Queryable& db, const std::string& tenant,
                                      const std::string& id,
                                      rapport::RecordLock lock = rapport::RecordLock::None);
// The record directory's checks of "pipeline" and "stage". RecordLock::Share
// key-share-locks the row on PostgreSQL until the transaction ends.
bool pipelineExists(rapport::Queryable& db, const std::string& tenant, const std::string& id,
                    rapport::RecordLock lock);
bool stageExists(rapport::Queryable& db, const std::string& tenant, const std::string& id,
                 rapport::RecordLock lock);
// One page of the tenant's pipelines and the total (from pipeline_counts).
rapport::ListPage list(rapport::Queryable& db, const std::string& tenant, const rapport::Sort& sort,
                       const rapport::PageRequest& page);

// --- Pipelines (in tx's tenant) --------------------------------------------

// Locks the tenant's row of pipeline_tenants (creating it) until commit: the
// writes that decide which pipeline is the default take turns per tenant.
void lockTenant(rapport::Tx& tx);
// True when the tenant has at least one pipeline.
bool hasPipelines(rapport::Tx& tx);
// Locks the pipeline row until commit (PostgreSQL: FOR NO KEY UPDATE, so
// references being written by deals, FOR KEY SHARE, do not wait) and returns
// it as findPipeline does; nullopt when there is no such pipeline.
std::optional<rapport::Row> lockPipeline(rapport::Tx& tx, const std::string& id);
// Clears is_default (and moves updated_at) of the tenant's default pipeline, if any.
void clearDefault(rapport::Tx& tx, std::int64_t now);
void insertPipeline(rapport::Tx& tx, const std::string& id, const std::string& name, bool isDefault,
                    std::int64_t now);
void updatePipeline(rapport::Tx& tx, const std::string& id, const std::string& name, bool isDefault,
                    std::int64_t now);
// Moves updated_at (its stages changed).
void touchPipeline(rapport::Tx& tx, const std::string& id, std::int64_t now);
// Deletes the pipeline row; nullopt when there was none, else whether it was
// the default.
std::optional<bool> removePipeline(rapport::Tx& tx, const std::string& id);
// Makes the tenant's oldest pipeline (created_at, then id) the default, if any.
void promoteOldest(rapport::Tx& tx, std::int64_t now);

// --- Stages (in tx's tenant; call under lockPipeline) -----------------------

// The pipeline's stages in order.
std::vector<StageSlot> stageOrder(rapport::Tx& tx, const std::string& pipelineId);
void insertStage(rapport::Tx& tx, const std::string& id, const std::string& pipelineId,
                 const std::string& name, std::int64_t position, std::int64_t probability,
                 std::int64_t now);
void updateStage(rapport::Tx& tx, const std::string& id, const std::string& name,
                 std::int64_t probability, std::int64_t now);
// False when `id` is not a stage of the pipeline.
bool removeStage(rapport::Tx& tx, const std::string& pipelineId, const std::string& id);
void removeStagesOf(rapport::Tx& tx, const std::string& pipelineId);
// Gives the stages of `current` the positions 1..n in the order of `ids`
// (ids not in `current` are skipped: the caller inserts them afterwards at
// their place). Only rows whose position changes are written (and their
// updated_at moved), in two passes so the unique index on the position never
// sees two stages in one place. Returns the number of stages moved.
std::size_t arrange(rapport::Tx& tx, const std::string& pipelineId,
                    const std::vector<StageSlot>& current, const std::vector<std::string>& ids,
                    std::int64_t now);

}  // namespace store
}  // namespace pipelines
