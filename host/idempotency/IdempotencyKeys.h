// Safe retries of POST requests (docs/api-choices.md "Safe retries:
// Idempotency-Key"), Stripe's semantics, for every authenticated POST route
// of every module:
//   - the first request with a key runs; its 2xx answer is kept for
//     idempotency.keep_hours (24) under (company, user, key);
//   - a repeat with the same method, path and body (JSON compared after
//     parsing: whitespace aside) gets the kept status, headers and body with
//     `Idempotent-Replayed: true`, and runs nothing;
//   - the same key with another request is a 422; a repeat while the first
//     still runs is a 409;
//   - an answer that is not a 2xx is not kept: the key is free again and a
//     retry runs (it changed nothing, so running it again is safe);
//   - a request whose instance died mid-way holds its key for
//     idempotency.lease_seconds (60), then a repeat takes it over and runs;
//   - every transaction of a keyed request marks its key "written" before
//     it commits (Claim::fence, storage/RequestTransactions.h). A request
//     that wrote is never run again: its answer is kept whatever its status,
//     and when its instance died before keeping it, a repeat gets a 409 that
//     says so. A request whose key was taken over meanwhile cannot commit.
// Keys live in the database (table idempotency_keys), so another instance or
// a restart honours them. Keys are stored as SHA-256, answers sealed with the
// server's key: an answer may hold a token or recovery codes.
//
// Threading: any number of threads; the database arbitrates races (two
// identical requests at once: one runs, the other gets 409).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "http/Exchange.h"
#include "rapport/config.h"
#include "rapport/db.h"
#include "rapport/http.h"
#include "rapport/jobs.h"
#include "rapport/secrets.h"
#include "storage/RequestTransactions.h"

namespace rapport::host {

struct IdempotencyOptions {
  std::int64_t keepMicros = 24LL * 3600 * 1'000'000;
  std::int64_t leaseMicros = 60LL * 1'000'000;
};

class IdempotencyKeys {
 public:
  // `db` and `box` must outlive the keys.
  IdempotencyKeys(rapport::Database& db, const rapport::SecretBox& box, IdempotencyOptions options);

  // A request's hold on its key while its handler runs. Destroyed without
  // complete(), it frees the key (the answer was not a 2xx, or the handler
  // threw).
  class Claim {
   public:
    Claim(const IdempotencyKeys& keys, std::string companyId, std::string userId,
          std::string keyHash, std::string holder);
    ~Claim();
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    // Keeps `response` for repeats when it is a 2xx or the request wrote
    // (the key is "written"); frees the key otherwise.
    void complete(const RawResponse& response);
    // What each of the request's transactions runs before it commits
    // (RequestTransactions::Hooks::beforeCommit): marks the key "written",
    // or throws rapport::Error 409 when another request holds it now (this
    // one ran past its lease and was taken over), rolling the work back.
    // The hook holds copies: it may run on another thread.
    RequestTransactions::Hook fence() const;

   private:
    friend class IdempotencyKeys;
    const IdempotencyKeys& keys_;
    std::string companyId_, userId_, keyHash_, holder_;
    bool done_ = false;
  };

  // What a keyed request does: replay a kept answer, or run holding a claim.
  struct Begun {
    std::optional<RawResponse> replay;
    std::unique_ptr<Claim> claim;
  };

  // Throws rapport::Error 400 (a malformed key), 409 (the first request
  // still runs) or 422 (the key was used with another request).
  Begun begin(const rapport::Request& request, const std::string& key,
              std::int64_t nowMicros) const;

  // The job that removes expired keys (hourly, in batches).
  rapport::Job purgeJob();

  // Reads idempotency.keep_hours and idempotency.lease_seconds.
  static IdempotencyOptions optionsFrom(const rapport::Config& config);

 private:
  std::optional<RawResponse> replayOf(const rapport::Row& row, const std::string& context) const;
  void keep(const Claim& claim, const RawResponse& response) const;
  // Removes a claim that wrote nothing; false when the key is "written"
  // (or no longer this claim's).
  bool free(const Claim& claim) const;
  // After a handler that threw: frees the key, or, when the request wrote,
  // ends its lease so a repeat learns at once that it will not run again.
  void abandon(const Claim& claim) const;

  rapport::Database& db_;
  const rapport::SecretBox& box_;
  IdempotencyOptions options_;
};

}  // namespace rapport::host
