// The shared rate-limit store (decisions §9: "with several server instances
// the counters live in the shared store"): the fixed-window counters of
// MemoryRateLimitStore, kept in redis so that every rapportd behind one load
// balancer counts a token (or client key) once.
//
// One key per client and window, "rapport:rl:<key>:<window>:<start>" (the
// key is what the Pipeline passes: a token id or a client key, never a
// secret), counted by one Lua script (INCR, and PEXPIRE on the first hit:
// the key disappears a second after its window ends), so instances racing
// on a key never lose a count. Windows start at multiples of the window
// since the epoch, as in memory: instances agree on them while their clocks
// agree (run NTP).
//
// Redis down: hit() and peek() throw RedisUnavailable (the redis pool logs
// it at most once per 10 s). The caller decides: the Pipeline serves or
// refuses as ratelimit.on_store_error says (StoreErrorPolicy.h).
//
// Threading: as RedisPool, any number of threads.
#pragma once

#include "ratelimit/RateLimitStore.h"
#include "ratelimit/RedisPool.h"

namespace rapport::host {

class RedisRateLimitStore final : public RateLimitStore {
 public:
  // `pool` must outlive the store.
  explicit RedisRateLimitStore(RedisPool& pool);

  RateDecision hit(const std::string& key, std::int64_t limit, std::int64_t windowSeconds,
                   std::int64_t nowSeconds) override;
  RateDecision peek(const std::string& key, std::int64_t limit, std::int64_t windowSeconds,
                    std::int64_t nowSeconds) override;

 private:
  // The decision on the count `script` returns (`counting`: hit() counted
  // this request). Throws RedisUnavailable.
  RateDecision decide(const RedisScript& script, const std::string& key, std::int64_t limit,
                      std::int64_t windowSeconds, std::int64_t nowSeconds, bool counting);

  RedisPool& pool_;
};

}  // namespace rapport::host
