#include "mail/MailService.h"

#include <stdexcept>
#include <string>

#include "log/Log.h"
#include "mail/OutboxTransport.h"
#include "mail/SmtpTransport.h"

namespace rapport::host::mail {

using Clock = std::chrono::steady_clock;

std::unique_ptr<MailService> MailService::fromConfig(const rapport::Config& config) {
  MailOptions options = MailOptions::fromConfig(config);
  std::unique_ptr<Transport> transport;
  if (!options.smtp.host.empty()) {
    transport = std::make_unique<SmtpTransport>(options.smtp);
  } else {
    transport = std::make_unique<OutboxTransport>(options.outbox);
  }
  return std::make_unique<MailService>(std::move(options), std::move(transport));
}

MailService::MailService(MailOptions options, std::unique_ptr<Transport> transport)
    : options_(std::move(options)), transport_(std::move(transport)) {
  if (options_.retrySchedule.empty()) {
    throw std::invalid_argument("the mail retry schedule needs at least one attempt");
  }
  if (options_.queueSize == 0) throw std::invalid_argument("mail.queue_size must be at least 1");
}

MailService::~MailService() {
  stop();
}

void MailService::start() {
  std::lock_guard lock(mutex_);
  if (started_ || stopped_) return;
  started_ = true;
  thread_ = std::thread([this] { run(); });
  log::info("mail ready", {{"transport", transport_->describe()}});
}

void MailService::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
    drainDeadline_ = Clock::now() + options_.drainTimeout;
    // One last attempt for everything, retries waiting included.
    for (auto& pending : queue_) pending.due = Clock::now();
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();

  std::lock_guard lock(mutex_);
  if (queue_.empty()) return;
  for (const auto& pending : queue_) {
    log::error("mail dropped at shutdown", {{"mail_id", pending.envelope.id},
                                            {"purpose", pending.envelope.purpose},
                                            {"to_domain", addressDomain(pending.envelope.to)}});
  }
  log::error("mail not sent before shutdown", {{"dropped", std::to_string(queue_.size())}});
  queue_.clear();
}

void MailService::send(MailMessage message) {
  // Throws std::invalid_argument for a bad recipient or subject: the
  // caller's bug (Mailer.h), so it surfaces rather than being logged away.
  Envelope envelope = makeEnvelope(message, options_.from);
  std::unique_lock lock(mutex_);
  if (stopped_) {
    log::error("mail dropped: the mailer has stopped", {{"mail_id", envelope.id},
                                                        {"purpose", envelope.purpose},
                                                        {"to_domain", addressDomain(envelope.to)}});
    return;
  }
  if (queue_.size() >= options_.queueSize) {
    log::error("mail dropped: queue full", {{"mail_id", envelope.id},
                                            {"purpose", envelope.purpose},
                                            {"to_domain", addressDomain(envelope.to)},
                                            {"queue_size", std::to_string(options_.queueSize)}});
    return;
  }
  log::info("mail queued", {{"mail_id", envelope.id},
                            {"purpose", envelope.purpose},
                            {"to_domain", addressDomain(envelope.to)}});
  queue_.push_back(Pending{std::move(envelope), 0, Clock::now() + options_.retrySchedule[0]});
  lock.unlock();
  wake_.notify_one();
}

std::size_t MailService::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

void MailService::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (stopping_ && (queue_.empty() || Clock::now() >= drainDeadline_)) return;
    // The earliest due message (first in arrival order among equals).
    auto next = queue_.end();
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (next == queue_.end() || it->due < next->due) next = it;
    }
    if (next == queue_.end()) {
      wake_.wait(lock);
      continue;
    }
    if (next->due > Clock::now()) {
      const auto until = stopping_ ? std::min(next->due, drainDeadline_) : next->due;
      wake_.wait_until(lock, until);
      continue;
    }
    Pending pending = std::move(*next);
    queue_.erase(next);
    lock.unlock();
    attempt(std::move(pending));
    lock.lock();
  }
}

// Called without the lock; requeues (under it) a message to retry.
void MailService::attempt(Pending pending) {
  ++pending.attempt;
  const Envelope& e = pending.envelope;
  const std::string attemptText = std::to_string(pending.attempt);
  std::string failure;
  bool permanent = false;
  try {
    transport_->deliver(e);
    log::info("mail sent", {{"mail_id", e.id},
                            {"purpose", e.purpose},
                            {"to_domain", addressDomain(e.to)},
                            {"attempt", attemptText}});
    return;
  } catch (const PermanentFailure& error) {
    failure = error.what();
    permanent = true;
  } catch (const std::exception& error) {
    failure = error.what();
  } catch (...) {
    failure = "unknown error";
  }
  {
    std::lock_guard lock(mutex_);
    const bool more = !permanent && !stopping_ && pending.attempt < options_.retrySchedule.size();
    if (!more) {
      log::error(permanent   ? "mail refused, given up"
                 : stopping_ ? "mail failed at shutdown, dropped"
                             : "mail failed, given up",
                 {{"mail_id", e.id},
                  {"purpose", e.purpose},
                  {"to_domain", addressDomain(e.to)},
                  {"attempt", attemptText},
                  {"error", failure}});
      return;
    }
    const auto delay = options_.retrySchedule[pending.attempt];
    log::warn("mail failed, will retry", {{"mail_id", e.id},
                                          {"purpose", e.purpose},
                                          {"to_domain", addressDomain(e.to)},
                                          {"attempt", attemptText},
                                          {"retry_in_ms", std::to_string(delay.count())},
                                          {"error", failure}});
    pending.due = Clock::now() + delay;
    queue_.push_back(std::move(pending));
  }
}

}  // namespace rapport::host::mail
