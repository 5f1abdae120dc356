#include "mail/MailService.h"

#include <stdexcept>
#include <string>
#include <string_view>

#include "log/Log.h"
#include "mail/OutboxTransport.h"
#include "mail/SmtpTransport.h"
#include "rapport/ids.h"
#include "rapport/json.h"
#include "rapport/time.h"

namespace rapport::host::mail {
namespace {

namespace table = outbox_table;

std::int64_t micros(std::chrono::milliseconds d) {
  return static_cast<std::int64_t>(d.count()) * 1000;
}

// Binds a sealed message to its row: copied into another row, it does not open.
std::string sealContext(const std::string& id) {
  return "mail:" + id;
}

// This sender's claim was taken over (its lease ran out): it must not pass
// the point of no return; the new holder sends the mail.
class ClaimLost : public std::runtime_error {
 public:
  ClaimLost() : std::runtime_error("another sender took the mail over") {}
};

// What the log says of a mail: never the subject, the body or the address.
struct Label {
  std::string id, purpose, toDomain, attempt;
};

// One line about `m`, with the error and the retry delay when given.
void say(log::Level level, std::string_view message, const Label& m, std::string_view error = {},
         std::string_view retryInMs = {}) {
  if (m.attempt.empty()) {
    log::write(level, message,
               {{"mail_id", m.id}, {"purpose", m.purpose}, {"to_domain", m.toDomain}});
  } else if (error.empty()) {
    log::write(level, message,
               {{"mail_id", m.id},
                {"purpose", m.purpose},
                {"to_domain", m.toDomain},
                {"attempt", m.attempt}});
  } else if (retryInMs.empty()) {
    log::write(level, message,
               {{"mail_id", m.id},
                {"purpose", m.purpose},
                {"to_domain", m.toDomain},
                {"attempt", m.attempt},
                {"error", error}});
  } else {
    log::write(level, message,
               {{"mail_id", m.id},
                {"purpose", m.purpose},
                {"to_domain", m.toDomain},
                {"attempt", m.attempt},
                {"retry_in_ms", retryInMs},
                {"error", error}});
  }
}

}  // namespace

std::unique_ptr<MailService> MailService::fromConfig(const rapport::Config& config,
                                                     rapport::Database& db,
                                                     const rapport::SecretBox& box) {
  MailOptions options = MailOptions::fromConfig(config);
  std::unique_ptr<Transport> transport;
  if (!options.smtp.host.empty()) {
    transport = std::make_unique<SmtpTransport>(options.smtp);
  } else {
    transport = std::make_unique<OutboxTransport>(options.outbox);
  }
  log::info("mail ready", {{"transport", transport->describe()}});
  return std::make_unique<MailService>(std::move(options), std::move(transport), db, box);
}

MailService::MailService(MailOptions options, std::unique_ptr<Transport> transport,
                         rapport::Database& db, const rapport::SecretBox& box, Clock clock)
    : options_(std::move(options)),
      transport_(std::move(transport)),
      db_(db),
      box_(box),
      clock_(clock ? std::move(clock) : Clock(&rapport::nowMicros)),
      holder_(rapport::newId("mls_")) {
  if (options_.retrySchedule.empty()) {
    throw std::invalid_argument("the mail retry schedule needs at least one attempt");
  }
  if (options_.queueSize == 0) throw std::invalid_argument("mail.queue_size must be at least 1");
}

bool MailService::enqueue(rapport::Queryable& q, const Envelope& e) {
  const std::string toDomain = addressDomain(e.to);
  if (table::waiting(q) >= static_cast<std::int64_t>(options_.queueSize)) {
    log::error("mail dropped: queue full", {{"mail_id", e.id},
                                            {"purpose", e.purpose},
                                            {"to_domain", toDomain},
                                            {"queue_size", std::to_string(options_.queueSize)}});
    return false;
  }
  const std::string message =
      rapport::Json::object({{"from", e.from}, {"to", e.to}, {"mime", e.mime}}).dump();
  const std::int64_t at = now();
  table::insert(q, {.id = e.id,
                    .purpose = e.purpose,
                    .toDomain = toDomain,
                    .sealed = box_.seal(message, sealContext(e.id)),
                    .dueAt = at + micros(options_.retrySchedule.front()),
                    .createdAt = at});
  return true;
}

void MailService::send(MailMessage message) {
  // Throws std::invalid_argument for a bad recipient or subject: the
  // caller's bug (Mailer.h), so it surfaces rather than being logged away.
  const Envelope envelope = makeEnvelope(message, options_.from);
  if (!enqueue(db_, envelope)) return;
  say(log::Level::Info, "mail queued",
      {envelope.id, envelope.purpose, addressDomain(envelope.to), {}});
  wake();
}

void MailService::send(rapport::Tx& tx, MailMessage message) {
  const Envelope envelope = makeEnvelope(message, options_.from);
  if (!enqueue(tx, envelope)) return;
  // Only a committed mail is queued; `fn` may run again (Database::transaction).
  tx.afterCommit(
      [this, label = Label{envelope.id, envelope.purpose, addressDomain(envelope.to), {}}] {
        say(log::Level::Info, "mail queued", label);
        wake();
      });
}

void MailService::wakeWith(rapport::JobHandle handle) {
  std::lock_guard lock(mutex_);
  waker_ = std::move(handle);
}

void MailService::wake() {
  rapport::JobHandle handle;
  {
    std::lock_guard lock(mutex_);
    handle = waker_;
  }
  if (handle) handle->wakeOne();
}

std::size_t MailService::queued() const {
  return static_cast<std::size_t>(table::waiting(db_));
}

std::int64_t MailService::leaseUntil() const {
  return now() + micros(options_.lease);
}

std::size_t MailService::sendDue(const std::function<bool()>& stopping) {
  if (table::anyAbandoned(db_, now())) {
    for (const table::MailLabel& lost : table::resolveAbandoned(db_, now())) {
      say(log::Level::Error,
          "mail outcome unknown: its sender stopped during the delivery, not sent again",
          {lost.id, lost.purpose, lost.toDomain, std::to_string(lost.attempts)});
    }
  }
  std::size_t attempts = 0;
  while (!(stopping && stopping()) && table::anyDue(db_, now())) {
    const std::optional<table::ClaimedMail> mail =
        table::claimNext(db_, holder_, now(), leaseUntil());
    if (!mail) break;  // another sender took it
    attempt(*mail);
    ++attempts;
  }
  return attempts;
}

Envelope MailService::open(const table::ClaimedMail& mail) const {
  const rapport::Json message = rapport::Json::parse(box_.open(mail.sealed, sealContext(mail.id)));
  Envelope e;
  e.id = mail.id;
  e.purpose = mail.purpose;
  e.from = message["from"].asString();
  e.to = message["to"].asString();
  e.mime = message["mime"].asString();
  return e;
}

void MailService::attempt(const table::ClaimedMail& mail) {
  const Label label{mail.id, mail.purpose, mail.toDomain, std::to_string(mail.attempts)};
  bool pastNoReturn = false;
  bool permanent = false;
  std::string failure;
  try {
    const Envelope envelope = open(mail);
    transport_->deliver(envelope, [&] {
      if (!table::markDelivering(db_, mail.id, holder_, leaseUntil())) throw ClaimLost();
      pastNoReturn = true;
    });
    say(log::Level::Info, "mail sent", label);
    table::finish(db_, mail.id, holder_, "sent", now());
    return;
  } catch (const ClaimLost&) {
    say(log::Level::Warn, "mail attempt abandoned: another sender took the mail over", label);
    return;
  } catch (const PermanentFailure& e) {
    failure = e.what();
    permanent = true;
  } catch (const TemporaryRefusal& e) {
    failure = e.what();
    pastNoReturn = false;  // the server answered: it did not take the message
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (pastNoReturn && !permanent) {
    // The server may have taken the message: at most once (docs/mail.md).
    say(log::Level::Error, "mail outcome unknown, not sent again", label, failure);
    table::finish(db_, mail.id, holder_, "unknown", now());
    return;
  }
  const auto made = static_cast<std::size_t>(mail.attempts);
  if (permanent || made >= options_.retrySchedule.size()) {
    say(log::Level::Error, permanent ? "mail refused, given up" : "mail failed, given up", label,
        failure);
    table::finish(db_, mail.id, holder_, "failed", now());
    return;
  }
  const auto delay = options_.retrySchedule[made];
  say(log::Level::Warn, "mail failed, will retry", label, failure, std::to_string(delay.count()));
  table::requeue(db_, mail.id, holder_, now() + micros(delay));
}

rapport::Job MailService::sendJob() {
  return {.name = "mail.send",
          .interval = std::chrono::seconds(1),
          .run =
              [this](rapport::JobContext& context) {
                sendDue([&context] { return context.stopping(); });
              },
          .concurrency = 1};
}

rapport::Job MailService::purgeJob() {
  return {.name = "mail.purge",
          .interval = std::chrono::hours(1),
          .run =
              [this](rapport::JobContext&) {
                const std::int64_t purged = table::purgeFinished(db_, now() - kKeepFinishedMicros);
                if (purged > 0) log::info("mail purged", {{"rows", std::to_string(purged)}});
              },
          .concurrency = 1};
}

}  // namespace rapport::host::mail
