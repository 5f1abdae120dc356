#include "delivery/Attempt.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "WebhookStore.h"
#include "health/HealthTally.h"
#include "rapport/ids.h"
#include "rapport/time.h"

namespace rapport::webhooks {
namespace {

// Time kept after an attempt's time-out to record its result inside the lease.
constexpr std::chrono::seconds kRecordMargin{5};
constexpr std::size_t kResponseBodyBytes = 4096;
// A receiver that answers this is gone for good: the webhook is disabled.
constexpr int kGone = 410;

std::int64_t micros(std::chrono::microseconds duration) {
  return static_cast<std::int64_t>(duration.count());
}

// What UTF-8 allows at `i`: the sequence's length and, when the bytes there
// follow the rules only up to the end of `s`, that it was cut there.
struct Sequence {
  std::size_t length = 0;  // of the well-formed sequence at i; 0 when there is none
  bool cut = false;        // a valid start of a sequence that `s` ends inside
};

Sequence sequenceAt(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0 == 0 ? 0u : 1u, false};
  std::size_t length = 0;
  unsigned char low = 0x80;  // bounds of the second byte
  unsigned char high = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    length = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    if (b0 == 0xe0) low = 0xa0;   // no overlong forms
    if (b0 == 0xed) high = 0x9f;  // no surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    if (b0 == 0xf0) low = 0x90;
    if (b0 == 0xf4) high = 0x8f;  // nothing above U+10FFFF
  } else {
    return {};
  }
  for (std::size_t k = 1; k < length; ++k) {
    if (i + k >= s.size()) return {0, true};
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (k == 1 ? (b < low || b > high) : (b < 0x80 || b > 0xbf)) return {};
  }
  return {length, false};
}

std::string describe(const AttemptResult& result) {
  std::string text = result.status > 0 ? "status=" + std::to_string(result.status) : "status=none";
  if (!result.error.empty()) text += " error=\"" + result.error + "\"";
  return text;
}

}  // namespace

std::string storableText(std::string_view bytes, std::size_t maxBytes) {
  static const std::string kReplacement = "\xef\xbf\xbd";  // U+FFFD
  std::string out;
  out.reserve(std::min(bytes.size(), maxBytes));
  for (std::size_t i = 0; i < bytes.size();) {
    const Sequence sequence = sequenceAt(bytes, i);
    // A character cut by the end of what the sender kept is dropped.
    if (sequence.cut) break;
    const std::size_t length = sequence.length == 0 ? kReplacement.size() : sequence.length;
    if (out.size() + length > maxBytes) break;
    if (sequence.length == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(bytes.substr(i, sequence.length));
      i += sequence.length;
    }
  }
  return out;
}

struct Deliverer::Target {
  std::string url;
  std::optional<std::string> secret;  // none when the sealed secret cannot be opened
  // The secret a rotation replaced, while its overlap lasts (a second v1).
  std::optional<std::string> previousSecret;
  bool active = true;
};

Deliverer::Deliverer(Host& host) : host_(host) {}
Deliverer::~Deliverer() = default;

void Deliverer::start(DeliverySettings settings) {
  settings_ = std::move(settings);
  sender_ = std::make_unique<HttpsSender>(settings_.sender);
  circuits_ = std::make_unique<TargetCircuits>(settings_.circuitTimeouts, settings_.circuitOpen);
}

std::chrono::microseconds Deliverer::leaseDuration() const {
  return 2 * settings_.timeout + kRecordMargin;
}

Lease Deliverer::newLease(std::int64_t now) const {
  return {.token = randomToken(16), .until = now + micros(leaseDuration())};
}

std::optional<Deliverer::Target> Deliverer::loadTarget(const ClaimedDelivery& d) {
  const auto stored = webhook_store::target(host_.db(), d.companyId, d.webhookId, nowMicros());
  if (!stored) return std::nullopt;
  Target target{.url = stored->url,
                .secret = std::nullopt,
                .previousSecret = std::nullopt,
                .active = stored->active};
  if (stored->sealedPreviousSecret) {
    // A rotation's overlap. A previous secret sealed under an older server
    // key (the key changed, then the secret was rotated) no longer opens:
    // the attempt is signed with the new secret alone.
    try {
      target.previousSecret =
          host_.secrets().open(*stored->sealedPreviousSecret, "webhook:" + d.webhookId);
    } catch (const std::exception&) {
      target.previousSecret = std::nullopt;
    }
  }
  try {
    target.secret = host_.secrets().open(stored->sealedSecret, "webhook:" + d.webhookId);
  } catch (const std::exception& e) {
    // The server's key changed (secrets.key / secrets.key_file): the
    // attempt fails and says so; the secret itself is never logged.
    host_.log().error("webhook secret cannot be opened: webhook=" + d.webhookId + " error=\"" +
                      e.what() + "\"");
  }
  return target;
}

AttemptRecord Deliverer::outcome(const ClaimedDelivery& d, const AttemptResult& result,
                                 Mode mode) const {
  const std::int64_t now = nowMicros();
  AttemptRecord record{.status = kSuccess,
                       .responseCode = std::nullopt,
                       .responseBody = std::nullopt,
                       .attemptedAt = result.attemptedAt > 0 ? result.attemptedAt : now,
                       .nextAttemptAt = std::nullopt};
  // response_code and response_body describe the last attempt: null when
  // no answer came (a time-out, a refused connection).
  if (result.status > 0) {
    record.responseCode = result.status;
    record.responseBody = storableText(result.body, kResponseBodyBytes);
  }
  if (result.success()) return record;

  const std::int64_t attemptsMade = d.attempts + 1;
  std::optional<std::chrono::seconds> delay;
  if (mode == Mode::Scheduled && result.status != kGone)
    delay = settings_.schedule.after(static_cast<int>(attemptsMade));
  if (delay && !result.retryAfter.empty()) {
    // Within the schedule: no sooner than asked, no later than its longest step.
    if (const auto asked = parseRetryAfter(result.retryAfter, std::chrono::system_clock::now()))
      delay = settings_.schedule.honour(*delay, *asked);
  }
  if (delay) {
    record.status = kPending;
    record.nextAttemptAt = now + micros(*delay);
  } else {
    record.status = kFailed;
  }
  host_.log().warn("webhook delivery attempt failed: delivery=" + d.id + " webhook=" + d.webhookId +
                   " event=" + d.event + " attempt=" + std::to_string(attemptsMade) + " " +
                   describe(result) +
                   (delay ? " next=\"in " + std::to_string(delay->count()) + " s\""
                          : " next=none status_now=failed"));
  return record;
}

std::vector<std::optional<Row>> Deliverer::deliver(const std::vector<ClaimedDelivery>& batch,
                                                   Mode mode) {
  std::vector<std::optional<Row>> recorded(batch.size());
  if (!sender_) return recorded;
  const std::int64_t needed = micros(settings_.timeout + kRecordMargin);

  std::map<std::string, std::optional<Target>> targets;  // by webhook id, loaded once per batch
  std::vector<std::pair<std::size_t, AttemptRecord>> results;
  results.reserve(batch.size());
  HealthTally health;  // the webhooks' failing streaks (health/), recorded with the attempts
  std::map<std::string, std::string> gone;  // webhook id -> company id: answered 410
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ClaimedDelivery& d = batch[i];
    if (nowMicros() + needed > d.leaseUntil) {
      // Cannot end inside the lease: free it now rather than let it run out.
      delivery_store::release(host_.db(), d);
      continue;
    }
    // An open circuit holds back first attempts only: a delivery already in
    // its retry schedule keeps it (decisions §8: 6 attempts at the
    // schedule's times), and its retries are the probes that close it.
    if (mode == Mode::Scheduled && d.attempts == 0) {
      if (const auto until = circuits_->openUntil(d.webhookId, nowMicros())) {
        delivery_store::defer(host_.db(), d, *until);
        continue;
      }
    }
    auto found = targets.find(d.webhookId);
    if (found == targets.end()) found = targets.emplace(d.webhookId, loadTarget(d)).first;
    const std::optional<Target>& target = found->second;
    if (!target) {
      // The webhook was deleted after this delivery was written (its
      // deletion removes the deliveries it can see): nothing to send.
      delivery_store::removeOrphan(host_.db(), d);
      continue;
    }
    if (mode == Mode::Scheduled && !target->active) {
      delivery_store::release(host_.db(), d, /*pause=*/true);
      continue;
    }
    AttemptResult result;
    if (target->secret) {
      result = sender_->send({.url = target->url,
                              .deliveryId = d.id,
                              .event = d.event,
                              .body = d.payload,
                              .secret = *target->secret,
                              .previousSecret = target->previousSecret,
                              .companyId = d.companyId});
      noteCircuit(d, result);
    } else {
      result.attemptedAt = nowMicros();
      result.error = "the webhook's secret cannot be opened with this server's key";
    }
    if (result.status == kGone) gone.emplace(d.webhookId, d.companyId);
    results.emplace_back(i, outcome(d, result, mode));
    health.add(d.companyId, d.webhookId, result, results.back().second.attemptedAt);
  }
  if (results.empty()) return recorded;

  host_.db().transaction("", [&](Tx& tx) {
    // The webhooks' rows before the deliveries' (the order PATCH and the
    // health check take them in).
    health.apply(tx);
    std::vector<delivery_store::AttemptOf> attempts;
    attempts.reserve(results.size());
    for (const auto& [index, record] : results) {
      attempts.push_back({.delivery = &batch[index], .result = record});
    }
    const std::vector<std::optional<Row>> rows = delivery_store::recordAll(tx, attempts);
    for (std::size_t k = 0; k < results.size(); ++k) recorded[results[k].first] = rows[k];
  });
  for (const auto& [webhookId, companyId] : gone) {
    if (gone_) gone_(companyId, webhookId);
  }
  return recorded;
}

void Deliverer::noteCircuit(const ClaimedDelivery& d, const AttemptResult& result) {
  const std::int64_t now = nowMicros();
  const auto opened = circuits_->record(d.webhookId, result.timedOut, now);
  if (!opened) return;
  // The webhook's other due deliveries wait too, so that the claims do not
  // keep taking them only to defer them one by one.
  const std::int64_t deferred =
      delivery_store::deferWebhook(host_.db(), d.companyId, d.webhookId, *opened, now);
  host_.log().warn("webhook circuit open: attempts time out: webhook=" + d.webhookId +
                   " company=" + d.companyId + " until=\"" + isoTimestamp(*opened) +
                   "\" deferred=" + std::to_string(deferred));
}

}  // namespace rapport::webhooks
