// SQL of the deliveries. Statements use "?" on both engines; the claim adds
// FOR UPDATE SKIP LOCKED on PostgreSQL (SQLite has no row locks and needs
// none: its writers take turns).
#include "DeliveryStore.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "rapport/json.h"

namespace rapport::webhooks::delivery_store {
namespace {

// The list's columns, in the order WebhooksJson shows them.
const std::string kListColumns =
    "id, event, status, response_code, attempts, created_at, last_attempt_at";
// A single read adds the envelope and the receiver's answer.
const std::string kDetailColumns = kListColumns + ", payload, response_body";
// What a claim returns.
const std::string kClaimReturning =
    " RETURNING id, company_id, webhook_id, event, payload, attempts";

std::vector<ClaimedDelivery> claimed(const Result& rows, const std::string& lease,
                                     std::int64_t leaseUntil) {
  std::vector<ClaimedDelivery> out;
  out.reserve(rows.size());
  for (const Row& row : rows) {
    out.push_back({.id = row.str("id"),
                   .companyId = row.str("company_id"),
                   .webhookId = row.str("webhook_id"),
                   .event = row.str("event"),
                   .payload = row.str("payload"),
                   .attempts = row.i64("attempts"),
                   .lease = lease,
                   .leaseUntil = leaseUntil});
  }
  return out;
}

// The live leases of worker batches (pings and manual retries have no
// next_attempt_at): the in-flight count of the claim's caps.
const std::string kLiveBatch =
    "l.lease IS NOT NULL AND l.lease_until >= ? AND l.next_attempt_at IS NOT NULL";
// A delivery a worker may take.
const std::string kDue =
    "status = 'pending' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ? "
    "AND (lease IS NULL OR lease_until < ?)";
// recordAll's results, as the engine reads them from the JSON array bound
// in their place: the row source `r` with these columns.
struct ResultColumn {
  const char* name;
  const char* type;  // PostgreSQL's
};
constexpr ResultColumn kResultColumns[] = {
    {"company_id", "TEXT"}, {"id", "TEXT"},   {"lease", "TEXT"},  {"code", "INTEGER"},
    {"body", "TEXT"},       {"at", "BIGINT"}, {"status", "TEXT"}, {"next", "BIGINT"}};

std::string attemptResults(bool pg) {
  std::string columns;
  for (const ResultColumn& c : kResultColumns) {
    if (!columns.empty()) columns += ", ";
    columns += pg ? std::string(c.name) + " " + c.type
                  : "json_extract(value, '$." + std::string(c.name) + "') AS " + c.name;
  }
  return pg ? "jsonb_to_recordset(CAST(? AS jsonb)) AS r(" + columns + ")"
            : "(SELECT " + columns + " FROM json_each(?)) AS r";
}

// "a, b" as "t.a AS a, t.b AS b": a column list read through `table`'s name
// where another source of the statement has columns of the same names.
std::string qualified(const std::string& columns, const std::string& table) {
  std::string out;
  std::size_t start = 0;
  while (start < columns.size()) {
    std::size_t end = columns.find(',', start);
    if (end == std::string::npos) end = columns.size();
    std::string column = columns.substr(start, end - start);
    column.erase(0, column.find_first_not_of(' '));
    out += (out.empty() ? "" : ", ") + table + "." + column + " AS " + column;
    start = end + 1;
  }
  return out;
}

// Companies tried per statement of the round robin.
constexpr int kCompaniesPerRead = 8;

// The batches in flight, as the caps count them: per company, and per
// company and webhook. Read once per claim, in one statement, through
// webhook_deliveries_leased (only rows under a lease are in it).
struct LiveBatches {
  std::map<std::string, std::set<std::string>> ofCompany;  // company -> leases
  std::map<std::pair<std::string, std::string>, std::set<std::string>> ofWebhook;
};

LiveBatches liveBatches(Queryable& db, std::int64_t now, const ClaimPolicy& policy) {
  LiveBatches live;
  if (policy.perCompany <= 0 && policy.perTarget <= 0) return live;
  const Result rows = db.query(
      "SELECT DISTINCT l.company_id AS company_id, l.webhook_id AS webhook_id, l.lease AS lease "
      "FROM webhook_deliveries l WHERE " +
          kLiveBatch,
      {now});
  for (const Row& row : rows) {
    const std::string company = row.str("company_id");
    const std::string lease = row.str("lease");
    live.ofCompany[company].insert(lease);
    live.ofWebhook[{company, row.str("webhook_id")}].insert(lease);
  }
  return live;
}

// Companies holding `cap` batches or more (none when cap is 0).
std::set<std::string> busyCompanies(const LiveBatches& live, int cap) {
  std::set<std::string> busy;
  if (cap <= 0) return busy;
  for (const auto& [company, leases] : live.ofCompany) {
    if (static_cast<int>(leases.size()) >= cap) busy.insert(company);
  }
  return busy;
}

// Companies with a due delivery, in id order: after `cursor`, or (wrapped)
// up to it; those in `skip` left out. A walk that jumps from one company to
// the next (webhook_deliveries_due_order, company_id first), one row each:
// `SELECT DISTINCT company_id` read every due delivery of every company it
// passed (5 ms for one company's 13,000, on every claim).
std::vector<std::string> dueCompanies(Queryable& db, std::int64_t now, const std::string& cursor,
                                      bool wrapped, const std::set<std::string>& skip) {
  const std::string upTo = wrapped ? " AND d.company_id <= ?" : "";
  const auto next = [&](const std::string& after) {
    return "(SELECT d.company_id FROM webhook_deliveries d WHERE " + kDue + " AND d.company_id > " +
           after + upTo + " ORDER BY d.company_id LIMIT 1)";
  };
  Params params{now, now, wrapped ? std::string() : cursor};
  if (wrapped) params.emplace_back(cursor);
  params.insert(params.end(), {Value(now), Value(now)});
  if (wrapped) params.emplace_back(cursor);
  params.emplace_back(static_cast<std::int64_t>(skip.size()) + kCompaniesPerRead);
  const Result rows = db.query("WITH RECURSIVE walk(company_id) AS (SELECT " + next("?") +
                                   " UNION ALL SELECT " + next("w.company_id") +
                                   " FROM walk w WHERE w.company_id IS NOT NULL) "
                                   "SELECT company_id FROM walk WHERE company_id IS NOT NULL "
                                   "LIMIT ?",
                               params);
  std::vector<std::string> companies;
  for (const Row& row : rows) {
    std::string company = row.str("company_id");
    if (skip.count(company) == 0) companies.push_back(std::move(company));
  }
  return companies;
}

// The webhooks of `company` holding `cap` batches or more (none when cap is 0).
std::vector<std::string> cappedWebhooks(const LiveBatches& live, const std::string& company,
                                        int cap) {
  std::vector<std::string> capped;
  if (cap <= 0) return capped;
  for (auto it = live.ofWebhook.lower_bound({company, std::string()});
       it != live.ofWebhook.end() && it->first.first == company; ++it) {
    if (static_cast<int>(it->second.size()) >= cap) capped.push_back(it->first.second);
  }
  return capped;
}

// Takes up to `limit` due deliveries of `company` to webhooks holding fewer
// than `perTarget` batches: fresh before backlog, oldest due first, in
// webhook_deliveries_due_order's order (it reads only what it takes).
std::vector<ClaimedDelivery> claimOfCompany(Queryable& db, const std::string& company,
                                            std::int64_t now, const std::string& lease,
                                            std::int64_t leaseUntil, int limit,
                                            const std::vector<std::string>& capped) {
  const std::string lock = db.dialect() == Dialect::PostgreSQL ? " FOR UPDATE SKIP LOCKED" : "";
  Params params{company, now, now};
  std::string targetCap;
  if (!capped.empty()) {
    targetCap = " AND d.webhook_id NOT IN (?";
    for (std::size_t i = 1; i < capped.size(); ++i) targetCap += ", ?";
    targetCap += ")";
    for (const std::string& webhook : capped) params.emplace_back(webhook);
  }
  params.emplace_back(static_cast<std::int64_t>(limit));
  params.emplace_back(lease);
  params.emplace_back(leaseUntil);
  // The picked rows by their key: on PostgreSQL an array, which a plan
  // without statistics (a young table) still looks up through the primary
  // key, where `IN (SELECT ...)` was planned as a scan of the whole table.
  const std::string pickedIds = db.dialect() == Dialect::PostgreSQL
                                    ? "id = ANY (ARRAY(SELECT id FROM picked))"
                                    : "id IN (SELECT id FROM picked)";
  // The pick is a CTE: PostgreSQL runs a locking CTE once, whereas a
  // `WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)` may be run
  // again per outer row and claim more than n (the mail outbox met it).
  Result rows = db.query(
      "WITH picked AS (SELECT d.id FROM webhook_deliveries d WHERE d.company_id = ? "
      "AND d.status = 'pending' AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ? "
      "AND (d.lease IS NULL OR d.lease_until < ?)" +
          targetCap + " ORDER BY d.backlog, d.next_attempt_at, d.created_at LIMIT ?" + lock +
          ") UPDATE webhook_deliveries SET lease = ?, lease_until = ? WHERE " + pickedIds +
          kClaimReturning + ", next_attempt_at, backlog, created_at",
      params);
  // RETURNING comes in the engine's order: the batch is sent in the claim's
  // order (a backfill's deliveries are due in the events' order).
  std::stable_sort(rows.rows.begin(), rows.rows.end(), [](const Row& a, const Row& b) {
    return std::make_tuple(a.i64("backlog"), a.i64("next_attempt_at"), a.i64("created_at")) <
           std::make_tuple(b.i64("backlog"), b.i64("next_attempt_at"), b.i64("created_at"));
  });
  return claimed(rows, lease, leaseUntil);
}

// claimDue's work, once the claims take turns (see DeliveryStore.h).
std::vector<ClaimedDelivery> claimInTurn(Queryable& db, std::int64_t now, const std::string& lease,
                                         std::int64_t leaseUntil, int limit,
                                         const ClaimPolicy& policy) {
  const LiveBatches live = liveBatches(db, now, policy);
  const std::set<std::string> capped = busyCompanies(live, policy.perCompany);
  // After the cursor, then from the start (the cursor's company last).
  for (const bool wrapped : {false, true}) {
    if (wrapped && policy.after.empty()) break;
    for (const std::string& company : dueCompanies(db, now, policy.after, wrapped, capped)) {
      std::vector<ClaimedDelivery> batch =
          claimOfCompany(db, company, now, lease, leaseUntil, limit,
                         cappedWebhooks(live, company, policy.perTarget));
      if (!batch.empty()) return batch;
    }
  }
  return {};
}

}  // namespace

void insert(Tx& tx, const NewDelivery& d) {
  tx.exec(
      "INSERT INTO webhook_deliveries (id, company_id, webhook_id, envelope_id, event, "
      "event_id, payload, status, attempts, created_at, next_attempt_at, lease, "
      "lease_until, backlog) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?)",
      {d.id, tx.companyId(), d.webhookId, d.envelopeId, d.event, d.eventId, d.payload, d.createdAt,
       d.nextAttemptAt, d.lease, d.leaseUntil, static_cast<std::int64_t>(d.backlog ? 1 : 0)});
}

bool anyDue(Queryable& db, std::int64_t now) {
  return !db.query(
                "SELECT 1 AS due FROM webhook_deliveries WHERE status = 'pending' "
                "AND next_attempt_at IS NOT NULL AND next_attempt_at <= ? "
                "AND (lease IS NULL OR lease_until < ?) LIMIT 1",
                {now, now})
              .empty();
}

std::vector<ClaimedDelivery> claimDue(Database& db, std::int64_t now, const std::string& lease,
                                      std::int64_t leaseUntil, int limit,
                                      const ClaimPolicy& policy) {
  std::vector<ClaimedDelivery> out;
  db.transaction("", [&](Tx& tx) {
    if (tx.dialect() == Dialect::PostgreSQL) {
      // Every statement of a claim reads through a partial index made for
      // it (leased rows, due rows); without statistics (a young table, or
      // one that grew faster than autovacuum analyses it) PostgreSQL
      // planned them as scans of every delivery ever written, per claim.
      // And as plain index scans, not bitmap scans: every claim and record
      // leaves a dead entry in those indexes (a lease taken, then freed),
      // which only a plain index scan marks dead for the next reader; with
      // bitmap scans each claim visited the table for every delivery
      // claimed since the last vacuum (18 ms per claim after 5,000, issue
      // 25). And the claim's commit does not wait for its WAL flush: the
      // lock is held to the end of the commit, so every claim waited for
      // the one before it to reach the disk. A claim lost to a crash of the
      // database leaves its deliveries without a lease: taken again, as
      // at-least-once allows. One round trip: the lock and the settings
      // (all local to the claim).
      tx.query(
          "SELECT pg_advisory_xact_lock(hashtext('rapport:webhook-claims'))::text AS locked, "
          "set_config('enable_seqscan', 'off', true) AS seqscan, "
          "set_config('enable_bitmapscan', 'off', true) AS bitmapscan, "
          "set_config('synchronous_commit', 'off', true) AS synchronous",
          {});
    }
    out = claimInTurn(tx, now, lease, leaseUntil, limit, policy);
  });
  return out;
}

std::optional<ClaimedDelivery> claimFailed(Queryable& db, const std::string& tenant,
                                           const std::string& webhookId, const std::string& id,
                                           std::int64_t now, const std::string& lease,
                                           std::int64_t leaseUntil) {
  const Result rows = db.query(
      "UPDATE webhook_deliveries SET lease = ?, lease_until = ? "
      "WHERE company_id = ? AND webhook_id = ? AND id = ? AND status = 'failed' "
      "AND (lease IS NULL OR lease_until < ?)" +
          kClaimReturning,
      {lease, leaseUntil, tenant, webhookId, id, now});
  auto out = claimed(rows, lease, leaseUntil);
  if (out.empty()) return std::nullopt;
  return std::move(out.front());
}

std::optional<Row> record(Tx& tx, const ClaimedDelivery& d, const AttemptRecord& r) {
  return recordAll(tx, {{.delivery = &d, .result = r}}).front();
}

std::vector<std::optional<Row>> recordAll(Tx& tx, const std::vector<AttemptOf>& attempts) {
  std::vector<std::optional<Row>> out(attempts.size());
  if (attempts.empty()) return out;
  // The results travel as one JSON array (any number of rows, any text in
  // a body) and the engine joins them to the deliveries by key and lease:
  // one statement per batch, where a statement per delivery was a round
  // trip each on PostgreSQL (issue 25).
  Json rows = Json::array();
  std::map<std::string, std::size_t> indexOf;
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    const ClaimedDelivery& d = *attempts[i].delivery;
    const AttemptRecord& r = attempts[i].result;
    indexOf.emplace(d.id, i);
    rows.push(Json::object({{"company_id", d.companyId},
                            {"id", d.id},
                            {"lease", d.lease},
                            {"code", r.responseCode ? Json(*r.responseCode) : Json()},
                            {"body", r.responseBody ? Json(*r.responseBody) : Json()},
                            {"at", r.attemptedAt},
                            {"status", r.status},
                            {"next", r.nextAttemptAt ? Json(*r.nextAttemptAt) : Json()}}));
  }
  const bool pg = tx.dialect() == Dialect::PostgreSQL;
  const std::string d = pg ? "d" : "webhook_deliveries";
  // next_attempt_at is kept only while the webhook is active: a webhook
  // paused during the attempt keeps its delivery pending but unscheduled.
  const Result written = tx.query(
      "UPDATE webhook_deliveries" + std::string(pg ? " AS d" : "") + " SET attempts = " + d +
          ".attempts + 1, response_code = r.code, response_body = r.body, "
          "last_attempt_at = r.at, status = r.status, next_attempt_at = CASE WHEN EXISTS ("
          "SELECT 1 FROM webhooks w WHERE w.company_id = " +
          d + ".company_id AND w.id = " + d + ".webhook_id AND w.is_active) THEN r.next " +
          "ELSE NULL END, lease = NULL, lease_until = NULL FROM " + attemptResults(pg) + " WHERE " +
          d + ".company_id = r.company_id AND " + d + ".id = r.id AND " + d +
          ".lease = r.lease RETURNING " + qualified(kListColumns, d),
      {rows.dump()});
  for (const Row& row : written.rows) {
    const auto found = indexOf.find(row.str("id"));
    if (found != indexOf.end()) out[found->second] = row;
  }
  return out;
}

void release(Queryable& db, const ClaimedDelivery& d, bool pause) {
  if (pause) {
    db.exec(
        "UPDATE webhook_deliveries SET lease = NULL, lease_until = NULL, next_attempt_at = NULL "
        "WHERE company_id = ? AND id = ? AND lease = ?",
        {d.companyId, d.id, d.lease});
  } else {
    db.exec(
        "UPDATE webhook_deliveries SET lease = NULL, lease_until = NULL "
        "WHERE company_id = ? AND id = ? AND lease = ?",
        {d.companyId, d.id, d.lease});
  }
}

void defer(Queryable& db, const ClaimedDelivery& d, std::int64_t until) {
  db.exec(
      "UPDATE webhook_deliveries SET lease = NULL, lease_until = NULL, next_attempt_at = ? "
      "WHERE company_id = ? AND id = ? AND lease = ? AND status = 'pending'",
      {until, d.companyId, d.id, d.lease});
}

std::int64_t deferWebhook(Queryable& db, const std::string& companyId, const std::string& webhookId,
                          std::int64_t until, std::int64_t now) {
  // Served by webhook_deliveries_status (company_id, webhook_id, status, ...).
  return db.exec(
      "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE company_id = ? AND webhook_id = ? "
      "AND status = 'pending' AND attempts = 0 AND next_attempt_at IS NOT NULL "
      "AND next_attempt_at < ? AND (lease IS NULL OR lease_until < ?)",
      {until, companyId, webhookId, until, now});
}

void removeOrphan(Queryable& db, const ClaimedDelivery& d) {
  db.exec("DELETE FROM webhook_deliveries WHERE company_id = ? AND id = ? AND lease = ?",
          {d.companyId, d.id, d.lease});
}

void pause(Tx& tx, const std::string& webhookId) {
  tx.exec(
      "UPDATE webhook_deliveries SET next_attempt_at = NULL "
      "WHERE company_id = ? AND webhook_id = ? AND status = 'pending'",
      {tx.companyId(), webhookId});
}

void resume(Tx& tx, const std::string& webhookId, std::int64_t now) {
  tx.exec(
      "UPDATE webhook_deliveries SET next_attempt_at = ? "
      "WHERE company_id = ? AND webhook_id = ? AND status = 'pending' "
      "AND event_id IS NOT NULL",
      {now, tx.companyId(), webhookId});
}

void removeOfWebhook(Tx& tx, const std::string& webhookId) {
  tx.exec("DELETE FROM webhook_deliveries WHERE company_id = ? AND webhook_id = ?",
          {tx.companyId(), webhookId});
}

std::optional<Row> find(Queryable& db, const std::string& tenant, const std::string& webhookId,
                        const std::string& id) {
  const Result rows = db.query("SELECT " + kDetailColumns +
                                   " FROM webhook_deliveries "
                                   "WHERE company_id = ? AND id = ? AND webhook_id = ?",
                               {tenant, id, webhookId});
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

const std::map<std::string, std::string>& sortColumns() {
  static const std::map<std::string, std::string> columns = {{"created_at", "created_at"}};
  return columns;
}

Sort defaultSort() {
  return {.column = "created_at", .descending = true};
}

ListPage list(Queryable& db, const std::string& tenant, const std::string& webhookId,
              const DeliveryFilter& filter, const Sort& sort, const PageRequest& page) {
  // Served by webhook_deliveries_list, _status or _event (all led by
  // company_id, webhook_id and ending in created_at, id).
  WhereClause where(db.dialect(), tenant);
  where.add("webhook_id = ?", {webhookId});
  if (filter.status) where.add("status = ?", {*filter.status});
  if (filter.event) where.add("event = ?", {*filter.event});
  return selectPage(db, kListColumns, "webhook_deliveries", where, sort, page);
}

std::int64_t purgeFinished(Queryable& db, std::int64_t cutoff, int batch) {
  return db.exec(
      "DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries "
      "WHERE status <> 'pending' AND created_at < ? ORDER BY created_at LIMIT ?)",
      {cutoff, batch});
}

std::int64_t failAbandonedPings(Queryable& db, std::int64_t now) {
  return db.exec(
      "UPDATE webhook_deliveries SET status = 'failed', lease = NULL, lease_until = NULL "
      "WHERE status = 'pending' AND event_id IS NULL AND lease_until < ?",
      {now});
}

}  // namespace rapport::webhooks::delivery_store
