// SQL of the pipelines module. Statements use "?" on both engines, with no
// dialect branch (row locks come from rapport::selectRecord).
#include "PipelinesStore.h"

#include <unordered_map>

#include "rapport/record_lookup.h"
#include "rapport/where.h"

namespace pipelines::store {
namespace {

using rapport::Queryable;
using rapport::Tx;

// The columns every pipeline read returns, in the order PipelinesJson shows them.
const std::string kPipelineColumns = "id, name, is_default, created_at, updated_at";
// The same for stages.
const std::string kStageColumns =
    "id, pipeline_id, name, position, probability, created_at, updated_at";

}  // namespace

const std::map<std::string, std::string>& sortColumns() {
  // Names sort without regard to case.
  static const std::map<std::string, std::string> columns = {
      {"name", "lower(name)"}, {"created_at", "created_at"}, {"updated_at", "updated_at"}};
  return columns;
}

rapport::Sort defaultSort() {
  return {.column = "created_at", .descending = true};
}

std::optional<rapport::Row> findPipeline(Queryable& db, const std::string& tenant,
                                         const std::string& id, rapport::RecordLock lock) {
  return rapport::selectRecord(db, kPipelineColumns, "pipelines", tenant, id,
                               rapport::rowLockFor(lock));
}

rapport::Result stagesOf(Queryable& db, const std::string& tenant,
                         const std::vector<std::string>& pipelineIds) {
  if (pipelineIds.empty()) return {};
  std::string placeholders;
  rapport::Params params{tenant};
  for (const std::string& id : pipelineIds) {
    placeholders += placeholders.empty() ? "?" : ", ?";
    params.emplace_back(id);
  }
  // Served by pipeline_stages_order (company_id, pipeline_id, position).
  return db.query("SELECT " + kStageColumns +
                      " FROM pipeline_stages WHERE company_id = ? AND pipeline_id IN (" +
                      placeholders + ") ORDER BY pipeline_id, position",
                  params);
}

std::optional<rapport::Row> findStage(Queryable& db, const std::string& tenant,
                                      const std::string& id, rapport::RecordLock lock) {
  return rapport::selectRecord(db, kStageColumns, "pipeline_stages", tenant, id,
                               rapport::rowLockFor(lock));
}

bool pipelineExists(Queryable& db, const std::string& tenant, const std::string& id,
                    rapport::RecordLock lock) {
  return rapport::selectRecord(db, "1", "pipelines", tenant, id, rapport::rowLockFor(lock))
      .has_value();
}

bool stageExists(Queryable& db, const std::string& tenant, const std::string& id,
                 rapport::RecordLock lock) {
  return rapport::selectRecord(db, "1", "pipeline_stages", tenant, id, rapport::rowLockFor(lock))
      .has_value();
}

rapport::ListPage list(Queryable& db, const std::string& tenant, const rapport::Sort& sort,
                       const rapport::PageRequest& page) {
  const rapport::WhereClause where(db.dialect(), tenant);
  return rapport::selectPage(db, kPipelineColumns, "pipelines", where, sort, page,
                             "pipeline_counts");
}

void lockTenant(Tx& tx) {
  // The upsert locks the row in both cases (a new row, or DO UPDATE of an
  // existing one); a racing first insert waits for the other's commit, then
  // updates (so locks) the committed row.
  tx.exec(
      "INSERT INTO pipeline_tenants (company_id) VALUES (?) "
      "ON CONFLICT (company_id) DO UPDATE SET company_id = excluded.company_id",
      {tx.companyId()});
}

bool hasPipelines(Tx& tx) {
  return !tx.query("SELECT 1 FROM pipelines WHERE company_id = ? LIMIT 1", {tx.companyId()})
              .empty();
}

std::optional<rapport::Row> lockPipeline(Tx& tx, const std::string& id) {
  return rapport::selectRecord(tx, kPipelineColumns, "pipelines", tx.companyId(), id,
                               rapport::RowLock::NoKeyUpdate);
}

void clearDefault(Tx& tx, std::int64_t now) {
  // Served by the partial index pipelines_default.
  tx.exec("UPDATE pipelines SET is_default = ?, updated_at = ? WHERE company_id = ? AND is_default",
          {false, now, tx.companyId()});
}

void insertPipeline(Tx& tx, const std::string& id, const std::string& name, bool isDefault,
                    std::int64_t now) {
  tx.exec(
      "INSERT INTO pipelines (id, company_id, name, is_default, created_at, updated_at) "
      "VALUES (?, ?, ?, ?, ?, ?)",
      {id, tx.companyId(), name, isDefault, now, now});
}

void updatePipeline(Tx& tx, const std::string& id, const std::string& name, bool isDefault,
                    std::int64_t now) {
  tx.exec(
      "UPDATE pipelines SET name = ?, is_default = ?, updated_at = ? "
      "WHERE company_id = ? AND id = ?",
      {name, isDefault, now, tx.companyId(), id});
}

void touchPipeline(Tx& tx, const std::string& id, std::int64_t now) {
  tx.exec("UPDATE pipelines SET updated_at = ? WHERE company_id = ? AND id = ?",
          {now, tx.companyId(), id});
}

std::optional<bool> removePipeline(Tx& tx, const std::string& id) {
  const rapport::Result removed =
      tx.query("DELETE FROM pipelines WHERE company_id = ? AND id = ? RETURNING is_default",
               {tx.companyId(), id});
  if (removed.empty()) return std::nullopt;
  return removed.front().flag("is_default");
}

void promoteOldest(Tx& tx, std::int64_t now) {
  // The oldest through pipelines_created.
  tx.exec(
      "UPDATE pipelines SET is_default = ?, updated_at = ? WHERE company_id = ? AND id = "
      "(SELECT id FROM pipelines WHERE company_id = ? ORDER BY created_at, id LIMIT 1)",
      {true, now, tx.companyId(), tx.companyId()});
}

std::vector<StageSlot> stageOrder(Tx& tx, const std::string& pipelineId) {
  std::vector<StageSlot> slots;
  for (const rapport::Row& row :
       tx.query("SELECT id, position FROM pipeline_stages WHERE company_id = ? AND "
                "pipeline_id = ? ORDER BY position",
                {tx.companyId(), pipelineId})) {
    slots.push_back({row.str("id"), row.i64("position")});
  }
  return slots;
}

void insertStage(Tx& tx, const std::string& id, const std::string& pipelineId,
                 const std::string& name, std::int64_t position, std::int64_t probability,
                 std::int64_t now) {
  tx.exec(
      "INSERT INTO pipeline_stages (id, company_id, pipeline_id, name, position, probability, "
      "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      {id, tx.companyId(), pipelineId, name, position, probability, now, now});
}

void updateStage(Tx& tx, const std::string& id, const std::string& name, std::int64_t probability,
                 std::int64_t now) {
  tx.exec(
      "UPDATE pipeline_stages SET name = ?, probability = ?, updated_at = ? "
      "WHERE company_id = ? AND id = ?",
      {name, probability, now, tx.companyId(), id});
}

bool removeStage(Tx& tx, const std::string& pipelineId, const std::string& id) {
  return tx.exec("DELETE FROM pipeline_stages WHERE company_id = ? AND pipeline_id = ? AND id = ?",
                 {tx.companyId(), pipelineId, id}) > 0;
}

void removeStagesOf(Tx& tx, const std::string& pipelineId) {
  tx.exec("DELETE FROM pipeline_stages WHERE company_id = ? AND pipeline_id = ?",
          {tx.companyId(), pipelineId});
}

std::size_t arrange(Tx& tx, const std::string& pipelineId, const std::vector<StageSlot>& current,
                    const std::vector<std::string>& ids, std::int64_t now) {
  std::unordered_map<std::string, std::int64_t> before;
  for (const StageSlot& slot : current) before.emplace(slot.id, slot.position);
  std::vector<StageSlot> moves;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto found = before.find(ids[i]);
    const auto target = static_cast<std::int64_t>(i + 1);
    if (found != before.end() && found->second != target) moves.push_back({ids[i], target});
  }
  const std::string sql =
      "UPDATE pipeline_stages SET position = ?, updated_at = ? "
      "WHERE company_id = ? AND pipeline_id = ? AND id = ?";
  // First out of the way (negative places are never used), then to the target.
  for (const StageSlot& move : moves) {
    tx.exec(sql, {-move.position, now, tx.companyId(), pipelineId, move.id});
  }
  for (const StageSlot& move : moves) {
    tx.exec(sql, {move.position, now, tx.companyId(), pipelineId, move.id});
  }
  return moves.size();
}

}  // namespace pipelines::store
