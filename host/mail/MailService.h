// The host's Mailer: a durable outbox. send() writes the message to the
// outbox table (mail_outbox, OutboxTable.h), sealed with the server's key,
// in the caller's transaction when it passes one; the "mail.send" job of
// any instance (sendJob(), run by the host's JobRunner) claims due mails one
// at a time and hands each to a Transport (SMTP when mail.smtp.host is set,
// otherwise .eml files in mail.outbox), retrying a failed delivery on
// MailOptions::retrySchedule (a PermanentFailure, an SMTP 5xx refusal, is
// given up at once). docs/mail.md is the operator's view.
//
// Never twice (at most once): before the transport's point of no return
// (the final "." of the SMTP data, the rename of the .eml file) the sender
// records durably that it is past it, guarded by its claim. A sender that
// dies before that point leaves a claim that another sender takes over when
// its lease ends (the server had taken nothing: the mail is sent later,
// once); one that dies after it leaves the mail "unknown", never sent again
// (logged). A sender whose lease ran out and was taken over cannot pass the
// point of no return.
//
// send() never blocks on delivery and never fails the request that calls it
// for a mail reason: a full outbox (mail.queue_size mails waiting) drops the
// new message with an error log (the caller's answer must not depend on,
// nor reveal, whether a mail went out). It throws for the caller's bugs
// (std::invalid_argument) and, like any write, rapport::DbError.
//
// Logs: one line per outcome with mail_id, purpose, to_domain, attempt and
// (on failure) the error; never the subject, the body or the whole address.
//
// Threading: every member is thread-safe; several senders (threads or
// instances) may run sendDue() at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "mail/Envelope.h"
#include "mail/MailOptions.h"
#include "mail/Mailer.h"
#include "mail/OutboxTable.h"
#include "mail/Transport.h"
#include "rapport/config.h"
#include "rapport/db.h"
#include "rapport/jobs.h"
#include "rapport/secrets.h"

namespace rapport::host::mail {

class MailService : public Mailer {
 public:
  // Microseconds since the epoch (rapport::nowMicros; tests move it).
  using Clock = std::function<std::int64_t()>;

  // Finished mails are deleted this long after they finished.
  static constexpr std::int64_t kKeepFinishedMicros = 7LL * 24 * 3600 * 1'000'000;

  // The transport the settings name (SMTP or outbox) and the mail.* keys;
  // logs "mail ready". Throws std::invalid_argument for a bad setting,
  // std::runtime_error when the outbox folder cannot be created.
  static std::unique_ptr<MailService> fromConfig(const rapport::Config& config,
                                                 rapport::Database& db,
                                                 const rapport::SecretBox& box);

  // `db` (with the host's migrations) and `box` outlive the service.
  MailService(MailOptions options, std::unique_ptr<Transport> transport, rapport::Database& db,
              const rapport::SecretBox& box, Clock clock = {});

  void send(MailMessage message) override;
  void send(rapport::Tx& tx, MailMessage message) override;

  // One pass of the sender: mails abandoned past their point of no return
  // become unknown, then due mails are claimed and attempted one at a time
  // until none is due or `stopping` says so. Returns the attempts made.
  // Throws rapport::DbError when the database fails (the claim stays and
  // expires).
  std::size_t sendDue(const std::function<bool()>& stopping = {});

  // "mail.send": sendDue() every second and when a send() wakes it. Give the
  // handle the runner returned to wakeWith().
  rapport::Job sendJob();
  void wakeWith(rapport::JobHandle handle);
  // "mail.purge": hourly, deletes mails finished kKeepFinishedMicros ago.
  rapport::Job purgeJob();

  // Mails waiting (queued or being sent), for tests and diagnostics.
  std::size_t queued() const;

 private:
  // Validates, seals and writes the message; false when the outbox is full.
  bool enqueue(rapport::Queryable& q, const Envelope& envelope);
  void wake();
  void attempt(const outbox_table::ClaimedMail& mail);
  Envelope open(const outbox_table::ClaimedMail& mail) const;
  std::int64_t now() const { return clock_(); }
  std::int64_t leaseUntil() const;

  const MailOptions options_;
  const std::unique_ptr<Transport> transport_;
  rapport::Database& db_;
  const rapport::SecretBox& box_;
  const Clock clock_;
  const std::string holder_;  // this sender's claims
  mutable std::mutex mutex_;
  rapport::JobHandle waker_;
};

}  // namespace rapport::host::mail
