#include "ratelimit/RedisRateLimitStore.h"

#include <algorithm>

namespace rapport::host {
namespace {

// KEYS[1] the window's key, ARGV[1] its lifetime in milliseconds. A key
// without a lifetime (PTTL -1) gets one too, so no counter lives forever.
const RedisScript kHit(R"lua(
local count = redis.call('INCR', KEYS[1])
if count == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return {count}
)lua");

const RedisScript kPeek(R"lua(
local count = redis.call('GET', KEYS[1])
if not count then return {0} end
return {tonumber(count)}
)lua");

// A second after the window ends: an instance whose clock lags a little
// still finds the count.
constexpr std::int64_t kSlackMillis = 1000;

// As MemoryRateLimitStore: windows begin at multiples of `window` since the
// epoch (floor, also before 1970), a non-positive window reads as one second.
std::int64_t windowStartFor(std::int64_t now, std::int64_t window) {
  std::int64_t start = now - now % window;
  if (now < 0 && now % window != 0) start -= window;
  return start;
}

}  // namespace

RedisRateLimitStore::RedisRateLimitStore(RedisPool& pool) : pool_(pool) {}

RateDecision RedisRateLimitStore::hit(const std::string& key, std::int64_t limit,
                                      std::int64_t windowSeconds, std::int64_t nowSeconds) {
  return decide(kHit, key, limit, windowSeconds, nowSeconds, true);
}

RateDecision RedisRateLimitStore::peek(const std::string& key, std::int64_t limit,
                                       std::int64_t windowSeconds, std::int64_t nowSeconds) {
  return decide(kPeek, key, limit, windowSeconds, nowSeconds, false);
}

RateDecision RedisRateLimitStore::decide(const RedisScript& script, const std::string& key,
                                         std::int64_t limit, std::int64_t windowSeconds,
                                         std::int64_t nowSeconds, bool counting) {
  const std::int64_t window = std::max<std::int64_t>(1, windowSeconds);
  const std::int64_t start = windowStartFor(nowSeconds, window);
  const std::int64_t end = start + window;
  const std::string redisKey =
      "rapport:rl:" + key + ":" + std::to_string(window) + ":" + std::to_string(start);
  const std::int64_t lifetimeMillis = (end - nowSeconds) * 1000 + kSlackMillis;
  const auto reply = pool_.eval(script, redisKey, {std::to_string(lifetimeMillis)});
  const std::int64_t count = reply.empty() ? 0 : reply[0];
  RateDecision decision;
  decision.allowed = counting ? count <= limit : count < limit;
  decision.limit = limit;
  decision.remaining = std::max<std::int64_t>(0, limit - count);
  decision.resetAt = end;
  decision.retryAfter = std::max<std::int64_t>(1, end - nowSeconds);
  return decision;
}

}  // namespace rapport::host
