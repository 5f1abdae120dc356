// SQL of the deals module. Statements use "?" on both engines, with no
// dialect branch (row locks come from rapport::selectRecord, the search's
// branch from rapport::addTextSearch).
#include "DealsStore.h"

#include "rapport/list.h"
#include "rapport/record_lookup.h"
#include "rapport/search.h"
#include "rapport/tags.h"
#include "rapport/where.h"

namespace deals::store {
namespace {

using rapport::Dialect;
using rapport::Queryable;
using rapport::Tx;

// The columns every read returns, in the order DealsJson shows them.
const std::string kColumns =
    "id, title, pipeline_id, stage_id, status, value, currency, contact_id, crm_company_id, "
    "owner_id, expected_close_date, probability, tags, notes, won_at, lost_at, lost_reason, "
    "created_at, updated_at";

// The tag filter's table: one row per tag of a deal.
constexpr rapport::TagTable kTags{"deal_tags", "deal_id", "deals", "deal_tag_counts"};

}  // namespace

const std::string& columns() {
  return kColumns;
}

// Every filter is served by an index led by company_id (docs/modules/deals.md):
// the search by the trigram index on search_text, the tag by deal_tags, the
// others by deals_<filter> (company_id, <column>, created_at, id).
rapport::WhereClause whereOf(Dialect dialect, const std::string& tenant, const DealFilter& filter) {
  rapport::WhereClause where(dialect, tenant);
  if (filter.search) rapport::addTextSearch(where, "deals_search", *filter.search);
  if (filter.tag) rapport::addTagFilter(where, kTags, *filter.tag);
  if (filter.status) where.add("status = ?", {*filter.status});
  if (filter.pipelineId) where.add("pipeline_id = ?", {*filter.pipelineId});
  if (filter.stageId) where.add("stage_id = ?", {*filter.stageId});
  if (filter.contactId) where.add("contact_id = ?", {*filter.contactId});
  if (filter.companyId) where.add("crm_company_id = ?", {*filter.companyId});
  if (filter.ownerId) where.add("owner_id = ?", {*filter.ownerId});
  return where;
}

std::optional<rapport::Row> find(Queryable& db, const std::string& tenant, const std::string& id,
                                 rapport::RecordLock lock) {
  return rapport::selectRecord(db, kColumns, "deals", tenant, id, rapport::rowLockFor(lock));
}

std::optional<rapport::Row> findForUpdate(Tx& tx, const std::string& id) {
  return rapport::selectRecord(tx, kColumns, "deals", tx.companyId(), id, rapport::RowLock::Update);
}

bool exists(Queryable& db, const std::string& tenant, const std::string& id,
            rapport::RecordLock lock) {
  return rapport::selectRecord(db, "1", "deals", tenant, id, rapport::rowLockFor(lock)).has_value();
}

Deal fromRow(const rapport::Row& row) {
  return Deal{.title = row.str("title"),
              .pipelineId = row.str("pipeline_id"),
              .stageId = row.str("stage_id"),
              .status = row.str("status"),
              .value = row.i64("value"),
              .currency = row.str("currency"),
              .contactId = row.optStr("contact_id"),
              .crmCompanyId = row.optStr("crm_company_id"),
              .ownerId = row.optStr("owner_id"),
              .expectedCloseDate = row.optStr("expected_close_date"),
              .probability = row.i64("probability"),
              .tags = rapport::tagsFromJsonText(row.str("tags")),
              .notes = row.optStr("notes"),
              .wonAt = row.optStr("won_at"),
              .lostAt = row.optStr("lost_at"),
              .lostReason = row.optStr("lost_reason")};
}

void insert(Tx& tx, const std::string& id, const Deal& d, std::int64_t now) {
  tx.exec(
      "INSERT INTO deals (id, company_id, title, pipeline_id, stage_id, status, value, currency, "
      "contact_id, crm_company_id, owner_id, expected_close_date, probability, tags, notes, "
      "won_at, lost_at, lost_reason, created_at, updated_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {id,
       tx.companyId(),
       d.title,
       d.pipelineId,
       d.stageId,
       d.status,
       d.value,
       d.currency,
       d.contactId,
       d.crmCompanyId,
       d.ownerId,
       d.expectedCloseDate,
       d.probability,
       rapport::tagsToJsonText(d.tags),
       d.notes,
       d.wonAt,
       d.lostAt,
       d.lostReason,
       now,
       now});
  rapport::replaceTagRows(tx, kTags, id, d.tags);
}

void update(Tx& tx, const std::string& id, const Deal& d,
            const std::vector<std::string>& tagsBefore, std::int64_t now) {
  // The totals' trigger (0006_deal_stage_totals.sql) follows status,
  // pipeline_id, stage_id and value.
  tx.exec(
      "UPDATE deals SET title = ?, pipeline_id = ?, stage_id = ?, status = ?, value = ?, "
      "currency = ?, contact_id = ?, crm_company_id = ?, owner_id = ?, expected_close_date = ?, "
      "probability = ?, tags = ?, notes = ?, won_at = ?, lost_at = ?, lost_reason = ?, "
      "updated_at = ? WHERE company_id = ? AND id = ?",
      {d.title, d.pipelineId, d.stageId, d.status, d.value, d.currency, d.contactId, d.crmCompanyId,
       d.ownerId, d.expectedCloseDate, d.probability, rapport::tagsToJsonText(d.tags), d.notes,
       d.wonAt, d.lostAt, d.lostReason, now, tx.companyId(), id});
  if (d.tags != tagsBefore) rapport::replaceTagRows(tx, kTags, id, d.tags);
}

bool remove(Tx& tx, const std::string& id) {
  rapport::deleteTagRows(tx, kTags, id);
  return tx.exec("DELETE FROM deals WHERE company_id = ? AND id = ?", {tx.companyId(), id}) > 0;
}

void unlinkContact(Tx& tx, const std::string& contactId, std::int64_t now) {
  tx.exec(
      "UPDATE deals SET contact_id = NULL, updated_at = ? WHERE company_id = ? AND contact_id = ?",
      {now, tx.companyId(), contactId});
}

void unlinkCompany(Tx& tx, const std::string& crmCompanyId, std::int64_t now) {
  tx.exec(
      "UPDATE deals SET crm_company_id = NULL, updated_at = ? "
      "WHERE company_id = ? AND crm_company_id = ?",
      {now, tx.companyId(), crmCompanyId});
}

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

}  // namespace deals::store
