#include "mail/OutboxTable.h"

namespace rapport::host::mail::outbox_table {
namespace {

// Due: queued and due, or claimed by a sender whose lease ran out before it
// reached the point of no return. Two "?": now, now.
constexpr const char* kDue =
    "((state = 'queued' AND due_at <= ?) OR (state = 'sending' AND lease_until < ?))";

MailLabel labelOf(const rapport::Row& row) {
  return {.id = row.str("id"),
          .purpose = row.str("purpose"),
          .toDomain = row.str("to_domain"),
          .attempts = row.i64("attempts")};
}

}  // namespace

void insert(rapport::Queryable& q, const NewMail& m) {
  q.exec(
      "INSERT INTO mail_outbox (id, purpose, to_domain, message_sealed, state, attempts, due_at, "
      "created_at) VALUES (?, ?, ?, ?, 'queued', 0, ?, ?)",
      {m.id, m.purpose, m.toDomain, m.sealed, m.dueAt, m.createdAt});
}

std::int64_t waiting(rapport::Queryable& q) {
  return q
      .query(
          "SELECT COUNT(*) AS n FROM mail_outbox "
          "WHERE state IN ('queued', 'sending', 'delivering')")
      .front()
      .i64("n");
}

bool anyDue(rapport::Queryable& q, std::int64_t now) {
  return !q.query(std::string("SELECT 1 AS due FROM mail_outbox WHERE ") + kDue + " LIMIT 1",
                  {now, now})
              .empty();
}

std::optional<ClaimedMail> claimNext(rapport::Database& db, const std::string& holder,
                                     std::int64_t now, std::int64_t leaseUntil) {
  // A scalar subquery runs once (PostgreSQL: an InitPlan); "id IN (...
  // LIMIT 1)" may be run again for each outer row, each run locking and
  // taking another row. The outer condition repeats the inner one: on
  // PostgreSQL a row another sender claimed and committed meanwhile no
  // longer qualifies.
  const std::string lock =
      db.dialect() == rapport::Dialect::PostgreSQL ? " FOR UPDATE SKIP LOCKED" : "";
  const rapport::Result rows = db.query(
      std::string("UPDATE mail_outbox SET state = 'sending', holder = ?, lease_until = ?, "
                  "attempts = attempts + 1 WHERE id = (SELECT id FROM mail_outbox WHERE ") +
          kDue + " ORDER BY due_at, created_at, id LIMIT 1" + lock + ") AND " + kDue +
          " RETURNING id, purpose, to_domain, message_sealed, attempts",
      {holder, leaseUntil, now, now, now, now});
  if (rows.empty()) return std::nullopt;
  const rapport::Row& row = rows.front();
  return ClaimedMail{.id = row.str("id"),
                     .purpose = row.str("purpose"),
                     .toDomain = row.str("to_domain"),
                     .sealed = row.str("message_sealed"),
                     .attempts = row.i64("attempts")};
}

bool markDelivering(rapport::Database& db, const std::string& id, const std::string& holder,
                    std::int64_t leaseUntil) {
  return db.exec(
             "UPDATE mail_outbox SET state = 'delivering', lease_until = ? "
             "WHERE id = ? AND holder = ? AND state = 'sending'",
             {leaseUntil, id, holder}) == 1;
}

bool requeue(rapport::Database& db, const std::string& id, const std::string& holder,
             std::int64_t dueAt) {
  return db.exec(
             "UPDATE mail_outbox SET state = 'queued', due_at = ?, holder = NULL, "
             "lease_until = NULL WHERE id = ? AND holder = ? AND state IN ('sending', "
             "'delivering')",
             {dueAt, id, holder}) == 1;
}

bool finish(rapport::Database& db, const std::string& id, const std::string& holder,
            const std::string& state, std::int64_t now) {
  return db.exec(
             "UPDATE mail_outbox SET state = ?, message_sealed = NULL, holder = NULL, "
             "lease_until = NULL, finished_at = ? WHERE id = ? AND holder = ? "
             "AND state IN ('sending', 'delivering')",
             {state, now, id, holder}) == 1;
}

bool anyAbandoned(rapport::Queryable& q, std::int64_t now) {
  return !q.query(
               "SELECT 1 AS abandoned FROM mail_outbox WHERE state = 'delivering' "
               "AND lease_until < ? LIMIT 1",
               {now})
              .empty();
}

std::vector<MailLabel> resolveAbandoned(rapport::Database& db, std::int64_t now) {
  const rapport::Result rows = db.query(
      "UPDATE mail_outbox SET state = 'unknown', message_sealed = NULL, holder = NULL, "
      "lease_until = NULL, finished_at = ? WHERE state = 'delivering' AND lease_until < ? "
      "RETURNING id, purpose, to_domain, attempts",
      {now, now});
  std::vector<MailLabel> out;
  for (const rapport::Row& row : rows) out.push_back(labelOf(row));
  return out;
}

std::int64_t purgeFinished(rapport::Database& db, std::int64_t before) {
  return db.exec("DELETE FROM mail_outbox WHERE finished_at IS NOT NULL AND finished_at < ?",
                 {before});
}

}  // namespace rapport::host::mail::outbox_table
