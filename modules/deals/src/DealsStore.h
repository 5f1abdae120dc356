// SQL of the deals module, and nothing else: every statement filters on the
// tenant (company_id). Tables: deals, deal_tags (the tag filter), deal_counts,
// deal_tag_counts, deal_stage_totals (the pipelines' counters) and, on
// SQLite, deals_search (the full-text index); see migrations/ and
// DealsTables.h (the tag and count tables are the SDK's listing tables).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/json.h"
#include "rapport/list.h"
#include "rapport/pagination.h"
#include "rapport/records.h"

namespace deals {

// The statuses of a deal (decisions §7).
inline const std::string kOpen = "open";
inline const std::string kWon = "won";
inline const std::string kLost = "lost";

// The stored fields of a deal: what POST sets, PATCH merges into and the
// transitions change.
struct Deal {
  std::string title;
  std::string pipelineId;
  std::string stageId;
  std::string status = kOpen;
  std::int64_t value = 0;  // cents
  std::string currency = "USD";
  std::optional<std::string> contactId;
  std::optional<std::string> crmCompanyId;  // API field company_id
  std::optional<std::string> ownerId;
  std::optional<std::string> expectedCloseDate;  // YYYY-MM-DD
  std::int64_t probability = 0;
  std::vector<std::string> tags;
  std::optional<std::string> notes;
  std::optional<std::string> wonAt;   // YYYY-MM-DD
  std::optional<std::string> lostAt;  // YYYY-MM-DD
  std::optional<std::string> lostReason;
};

// Filters of the list; they combine with AND. Values are trimmed, non-blank.
struct DealFilter {
  std::optional<std::string> search;  // substring of the title, any case
  std::optional<std::string> status;  // open, won or lost
  std::optional<std::string> pipelineId;
  std::optional<std::string> stageId;
  std::optional<std::string> contactId;
  std::optional<std::string> companyId;  // the CRM company
  std::optional<std::string> ownerId;
  std::optional<std::string> tag;  // any case
};

// deals_count and deals_value of the open deals of one stage.
struct StageTotals {
  std::int64_t count = 0;
  std::int64_t value = 0;
};
// pipeline id -> stage id -> totals.
using PipelineTotals = std::map<std::string, std::map<std::string, StageTotals>>;

namespace store {

// The columns every read returns, in the order the JSON shows them.
const std::string& columns();
// The list's own parameters as the WHERE clause the record query engine
// adds the request's filter to.
rapport::WhereClause whereOf(rapport::Dialect dialect, const std::string& tenant,
                             const DealFilter& filter);

// The deal's row, or nullopt when `id` is not a deal of `tenant`.
// With RecordLock::Share (the record directory's fetch for a reference about
// to be written) the row is key-share-locked on PostgreSQL in the same read.
std::optional<rapport::Row> find(rapport::Queryable& db, const std::string& tenant,
                                 const std::string& id,
                                 rapport::RecordLock lock = rapport::RecordLock::None);
// The same inside a write transaction, locking the row until commit (FOR
// UPDATE on PostgreSQL; on SQLite the transaction holds the write lock).
std::optional<rapport::Row> findForUpdate(rapport::Tx& tx, const std::string& id);
// True when `id` is a deal of `tenant`: the record directory's check of
// "deal". RecordLock::Share key-share-locks the row on PostgreSQL.
bool exists(rapport::Queryable& db, const std::string& tenant, const std::string& id,
            rapport::RecordLock lock = rapport::RecordLock::None);
// The stored fields of a row returned by find().
Deal fromRow(const rapport::Row& row);

// Write the whole record (and its tags).
void insert(rapport::Tx& tx, const std::string& id, const Deal& deal, std::int64_t now);
// Rewrites every stored field; the tag rows only when the tags differ from
// `tagsBefore`.
void update(rapport::Tx& tx, const std::string& id, const Deal& deal,
            const std::vector<std::string>& tagsBefore, std::int64_t now);
// False when there was no such deal.
bool remove(rapport::Tx& tx, const std::string& id);
// Clears the link to a deleted contact / CRM company from the tenant's deals.
void unlinkContact(rapport::Tx& tx, const std::string& contactId, std::int64_t now);
void unlinkCompany(rapport::Tx& tx, const std::string& crmCompanyId, std::int64_t now);
// True when any deal of tx's tenant (open or closed) is in the stage / pipeline.
bool anyInStage(rapport::Tx& tx, const std::string& stageId);
bool anyInPipeline(rapport::Tx& tx, const std::string& pipelineId);

// The open deals' totals of every stage of `pipelineIds` (one query over
// deal_stage_totals; stages without open deals are absent).
PipelineTotals stageTotals(rapport::Queryable& db, const std::string& tenant,
                           const std::vector<std::string>& pipelineIds);

}  // namespace store
}  // namespace deals
