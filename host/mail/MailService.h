// The host's Mailer: a bounded in-memory queue and one sender thread that
// hands each message to a Transport (SMTP when mail.smtp.host is set,
// otherwise .eml files in mail.outbox) and retries a failed delivery on
// MailOptions::retrySchedule (a PermanentFailure, an SMTP 5xx refusal of the
// mail, is given up at once). docs/mail.md is the operator's view.
//
// send() never blocks on delivery and never fails the request that calls
// it: a full queue drops the new message with an error log (the caller's
// answer must not depend on, nor reveal, whether a mail went out). Mail is
// not durable: what is still queued when stop()'s drain ends, or when the
// process dies, is lost (logged as dropped); the user asks again.
//
// Logs: one line per outcome with mail_id, purpose, to_domain, attempt and
// (on failure) the error; never the subject, the body or the whole address.
//
// Lifecycle: construct -> start() -> send()... -> stop(). send() before
// start() queues; send() after stop() drops (logged). stop() is idempotent.
// Threading: every member is thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "mail/Envelope.h"
#include "mail/MailOptions.h"
#include "mail/Mailer.h"
#include "mail/Transport.h"
#include "rapport/config.h"

namespace rapport::host::mail {

class MailService : public Mailer {
 public:
  // The transport the settings name (SMTP or outbox) and the mail.* keys.
  // Throws std::invalid_argument for a bad setting, std::runtime_error when
  // the outbox folder cannot be created.
  static std::unique_ptr<MailService> fromConfig(const rapport::Config& config);

  MailService(MailOptions options, std::unique_ptr<Transport> transport);
  ~MailService() override;

  void start();
  // Delivers what is queued (each message one more attempt, retries waiting
  // included) for up to options.drainTimeout, then drops and logs the rest.
  // An attempt in progress at the deadline finishes first (bounded by the
  // SMTP timeout).
  void stop();

  void send(MailMessage message) override;

  // Messages waiting (first attempt or retry), for tests and diagnostics.
  std::size_t queued() const;

 private:
  struct Pending {
    Envelope envelope;
    std::size_t attempt = 0;  // attempts made so far
    std::chrono::steady_clock::time_point due;
  };

  void run();
  void attempt(Pending pending);

  const MailOptions options_;
  const std::unique_ptr<Transport> transport_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Pending> queue_;  // in order of arrival; due times differ on retry
  bool started_ = false;
  bool stopping_ = false;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point drainDeadline_;
  std::thread thread_;
};

}  // namespace rapport::host::mail
