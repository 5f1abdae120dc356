#include "idempotency/IdempotencyKeys.h"

#include <chrono>

#include "log/Log.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/json.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport::host {

namespace {

constexpr std::size_t kMaxKeyLength = 255;
constexpr int kPurgeBatch = 1000;
// Rounds of "claim, or read what holds the key": a row can vanish (expired,
// freed) between the two, at most a few times in a row.
constexpr int kAttempts = 4;

void checkKey(const std::string& key) {
  bool visible = !key.empty() && key.size() <= kMaxKeyLength;
  for (char c : key) visible = visible && c >= 0x21 && c <= 0x7E;
  if (!visible) {
    throw rapport::Error::badRequest(
        "The Idempotency-Key header must be 1 to 255 visible ASCII characters.");
  }
}

// What makes two requests "the same": method, path and body. The body is
// compared as parsed JSON, so whitespace does not matter (member order does).
std::string fingerprintOf(const rapport::Request& request) {
  const std::string body = request.hasBody ? request.body.dump() : "";
  return rapport::sha256Hex(request.method + " " + request.path + "\n" + body);
}

std::string sealContext(const std::string& companyId, const std::string& userId,
                        const std::string& keyHash) {
  return "idempotency:" + companyId + ":" + userId + ":" + keyHash;
}

// The handler's own headers (Location...), not those the pipeline adds to
// every answer (request id, rate limit, content type): a replay gets fresh ones.
bool kept(const std::string& name) {
  const std::string lower = rapport::toLower(name);
  return lower != "x-request-id" && lower.rfind("x-ratelimit-", 0) != 0 &&
         lower != "content-type" && lower != "deprecation" && lower != "sunset" && lower != "link";
}

}  // namespace

IdempotencyKeys::IdempotencyKeys(rapport::Database& db, const rapport::SecretBox& box,
                                 IdempotencyOptions options)
    : db_(db), box_(box), options_(options) {}

IdempotencyOptions IdempotencyKeys::optionsFrom(const rapport::Config& config) {
  IdempotencyOptions options;
  options.keepMicros =
      config.getIntBetween("idempotency.keep_hours", 24, 1, 720) * 3600 * std::int64_t{1'000'000};
  options.leaseMicros =
      config.getIntBetween("idempotency.lease_seconds", 60, 5, 3600) * std::int64_t{1'000'000};
  return options;
}

IdempotencyKeys::Begun IdempotencyKeys::begin(const rapport::Request& request,
                                              const std::string& key, std::int64_t now) const {
  checkKey(key);
  const std::string& companyId = request.identity.companyId;
  // The caller: a user, or an API key (each key keeps its own keys).
  const std::string& userId = request.identity.principalId();
  const std::string keyHash = rapport::sha256Hex(key);
  const std::string fingerprint = fingerprintOf(request);
  const std::string holder = rapport::randomToken(16);
  const rapport::Params id = {companyId, userId, keyHash};
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const std::int64_t claimed = db_.exec(
        "INSERT INTO idempotency_keys (company_id, user_id, key_hash, fingerprint, state, holder, "
        "lease_until, created_at, expires_at) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?) "
        "ON CONFLICT DO NOTHING",
        {companyId, userId, keyHash, fingerprint, holder, now + options_.leaseMicros, now,
         now + options_.keepMicros});
    if (claimed == 1) {
      return {std::nullopt, std::make_unique<Claim>(*this, companyId, userId, keyHash, holder)};
    }
    const rapport::Result found = db_.query(
        "SELECT fingerprint, state, holder, lease_until, response_sealed, expires_at "
        "FROM idempotency_keys WHERE company_id = ? AND user_id = ? AND key_hash = ?",
        id);
    if (found.rows.empty()) continue;  // freed meanwhile: claim again
    const rapport::Row& row = found.rows.front();
    if (row["expires_at"].asInt() <= now) {
      db_.exec(
          "DELETE FROM idempotency_keys WHERE company_id = ? AND user_id = ? AND key_hash = ? "
          "AND expires_at <= ?",
          {companyId, userId, keyHash, now});
      continue;
    }
    if (row["fingerprint"].asString() != fingerprint) {
      // A 422 names its field (decisions §1): the header at fault.
      throw rapport::Error::invalidField("Idempotency-Key",
                                         "This Idempotency-Key was used with another request "
                                         "(method, path or body): use a new key for a new "
                                         "request.");
    }
    if (row["state"].asString() == "done") {
      return {replayOf(row, sealContext(companyId, userId, keyHash)), nullptr};
    }
    if (row["lease_until"].asInt() > now) {
      throw rapport::Error(409,
                           "A request with this Idempotency-Key is still running: retry once it "
                           "has answered.")
          .withHeader("Retry-After", "1");
    }
    if (row["state"].asString() == "written") {
      throw rapport::Error(409,
                           "A request with this Idempotency-Key made changes but its answer was "
                           "not kept (the server stopped). It will not run again: read the records "
                           "to see what it changed, or use a new key for a new request.");
    }
    // The first request's instance died holding the key: take it over.
    const std::int64_t taken = db_.exec(
        "UPDATE idempotency_keys SET holder = ?, lease_until = ? WHERE company_id = ? AND "
        "user_id = ? AND key_hash = ? AND state = 'running' AND holder = ?",
        {holder, now + options_.leaseMicros, companyId, userId, keyHash, row["holder"].asString()});
    if (taken == 1) {
      return {std::nullopt, std::make_unique<Claim>(*this, companyId, userId, keyHash, holder)};
    }
  }
  throw rapport::DbError(rapport::DbError::Kind::Busy, "idempotency key kept changing");
}

std::optional<RawResponse> IdempotencyKeys::replayOf(const rapport::Row& row,
                                                     const std::string& context) const {
  const rapport::Json stored =
      rapport::Json::parse(box_.open(row["response_sealed"].asString(), context));
  RawResponse out;
  out.status = static_cast<int>(stored["status"].asInt());
  for (const rapport::Json& header : stored["headers"].asArray()) {
    const rapport::Json::Array& pair = header.asArray();
    out.headers.emplace_back(pair.at(0).asString(), pair.at(1).asString());
  }
  out.body = stored["body"].asString();
  out.setHeader("Idempotent-Replayed", "true");
  return out;
}

void IdempotencyKeys::keep(const Claim& claim, const RawResponse& response) const {
  rapport::Json::Array headers;
  for (const auto& [name, value] : response.headers) {
    if (kept(name)) headers.push_back(rapport::Json(rapport::Json::Array{name, value}));
  }
  const rapport::Json stored = rapport::Json::object(
      {{"status", response.status}, {"headers", rapport::Json(headers)}, {"body", response.body}});
  const std::string sealed =
      box_.seal(stored.dump(), sealContext(claim.companyId_, claim.userId_, claim.keyHash_));
  db_.exec(
      "UPDATE idempotency_keys SET state = 'done', response_sealed = ?, lease_until = 0 "
      "WHERE company_id = ? AND user_id = ? AND key_hash = ? AND holder = ?",
      {sealed, claim.companyId_, claim.userId_, claim.keyHash_, claim.holder_});
}

bool IdempotencyKeys::free(const Claim& claim) const {
  return db_.exec(
             "DELETE FROM idempotency_keys WHERE company_id = ? AND user_id = ? AND "
             "key_hash = ? AND holder = ? AND state = 'running'",
             {claim.companyId_, claim.userId_, claim.keyHash_, claim.holder_}) == 1;
}

void IdempotencyKeys::abandon(const Claim& claim) const {
  if (free(claim)) return;
  db_.exec(
      "UPDATE idempotency_keys SET lease_until = 0 WHERE company_id = ? AND user_id = ? AND "
      "key_hash = ? AND holder = ? AND state = 'written'",
      {claim.companyId_, claim.userId_, claim.keyHash_, claim.holder_});
}

rapport::Job IdempotencyKeys::purgeJob() {
  return {.name = "idempotency.purge",
          .interval = std::chrono::hours(1),
          .run =
              [this](rapport::JobContext& context) {
                for (std::int64_t n = kPurgeBatch; n == kPurgeBatch && !context.stopping();) {
                  n = db_.exec(
                      "DELETE FROM idempotency_keys WHERE (company_id, user_id, key_hash) IN "
                      "(SELECT company_id, user_id, key_hash FROM idempotency_keys "
                      "WHERE expires_at < ? LIMIT ?)",
                      {rapport::nowMicros(), kPurgeBatch});
                }
              },
          .concurrency = 1};
}

IdempotencyKeys::Claim::Claim(const IdempotencyKeys& keys, std::string companyId,
                              std::string userId, std::string keyHash, std::string holder)
    : keys_(keys),
      companyId_(std::move(companyId)),
      userId_(std::move(userId)),
      keyHash_(std::move(keyHash)),
      holder_(std::move(holder)) {}

void IdempotencyKeys::Claim::complete(const RawResponse& response) {
  const bool success = response.status >= 200 && response.status <= 299;
  // A failure that wrote nothing frees the key: a corrected retry may run.
  // One that wrote is kept: running it again would write twice.
  if (success || !keys_.free(*this)) keys_.keep(*this, response);
  done_ = true;
}

RequestTransactions::Hook IdempotencyKeys::Claim::fence() const {
  return [params = rapport::Params{companyId_, userId_, keyHash_, holder_}](rapport::Tx& tx) {
    const std::int64_t marked = tx.exec(
        "UPDATE idempotency_keys SET state = 'written' WHERE company_id = ? AND "
        "user_id = ? AND key_hash = ? AND holder = ?",
        params);
    if (marked != 1) {
      throw rapport::Error(409,
                           "This request ran so long that a retry with its Idempotency-Key took "
                           "it over: it changed nothing.");
    }
  };
}

IdempotencyKeys::Claim::~Claim() {
  if (done_) return;
  try {
    keys_.abandon(*this);
  } catch (const std::exception& e) {
    // The key stays held until its lease ends; a repeat then runs, or
    // learns that the request wrote.
    log::warn("idempotency key not released", {{"error", e.what()}});
  }
}

}  // namespace rapport::host
