// The SQL of the outbox table, mail_outbox (migrations/*/0012_mail_outbox.sql).
// A mail's life: queued (waiting for due_at) -> sending (claimed by one
// sender under a lease) -> delivering (the sender passed the transport's
// point of no return) -> sent; or back to queued for a retry; or failed
// (refused, retries spent) or unknown (its sender died while delivering).
// A finished mail's sealed message is blanked at once; the row stays 7 days.
//
// Every write after the claim is guarded by the sender's holder id, so a
// sender whose lease ran out and was taken over changes nothing. The
// statements use "?" on both engines; the claim's scalar subquery adds FOR
// UPDATE SKIP LOCKED on PostgreSQL (instances never take the same row); on
// SQLite the single UPDATE ... RETURNING is atomic (its writers take turns).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"

namespace rapport::host::mail::outbox_table {

struct NewMail {
  std::string id;
  std::string purpose;
  std::string toDomain;
  std::string sealed;
  std::int64_t dueAt = 0;
  std::int64_t createdAt = 0;
};

struct ClaimedMail {
  std::string id;
  std::string purpose;
  std::string toDomain;
  std::string sealed;
  std::int64_t attempts = 0;  // this attempt included
};

// What the log says of a mail without opening it.
struct MailLabel {
  std::string id;
  std::string purpose;
  std::string toDomain;
  std::int64_t attempts = 0;
};

void insert(rapport::Queryable& q, const NewMail& mail);

// Mails not finished (queued, sending, delivering).
std::int64_t waiting(rapport::Queryable& q);

// True when claimNext() would find a mail: a read, so an idle sender's poll
// takes no write lock (SQLite's single writer).
bool anyDue(rapport::Queryable& q, std::int64_t now);

// Takes the oldest due mail - queued and due, or sending under an expired
// lease (its sender died before the point of no return) - for `holder`
// until `leaseUntil`, counting the attempt. Outside any transaction.
std::optional<ClaimedMail> claimNext(rapport::Database& db, const std::string& holder,
                                     std::int64_t now, std::int64_t leaseUntil);

// The point of no return: sending -> delivering, the lease renewed until
// `leaseUntil`. False when `holder` no longer holds the mail.
bool markDelivering(rapport::Database& db, const std::string& id, const std::string& holder,
                    std::int64_t leaseUntil);

// Back to queued, due at `dueAt`. False when `holder` no longer holds it.
bool requeue(rapport::Database& db, const std::string& id, const std::string& holder,
             std::int64_t dueAt);

// Finished ("sent", "failed" or "unknown"): the sealed message blanked.
// False when `holder` no longer holds it.
bool finish(rapport::Database& db, const std::string& id, const std::string& holder,
            const std::string& state, std::int64_t now);

// True when some mail is delivering under an expired lease (a read).
bool anyAbandoned(rapport::Queryable& q, std::int64_t now);

// Mails delivering under an expired lease become unknown (blanked): their
// sender died after the point of no return, so they are never sent again.
std::vector<MailLabel> resolveAbandoned(rapport::Database& db, std::int64_t now);

// Deletes finished mails older than `before`; returns how many.
std::int64_t purgeFinished(rapport::Database& db, std::int64_t before);

}  // namespace rapport::host::mail::outbox_table
