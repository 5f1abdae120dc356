#include "ratelimit/RedisAttemptLog.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "rapport/error.h"

namespace rapport::host {
namespace {

// Shared by every script: KEYS[1] is the sorted set of one key. Times are
// passed as decimal strings and used as scores as they are; the arithmetic
// on them (a lifetime) stays far below 2^53, where Lua's doubles are exact.
const std::string kPrologue = R"lua(
local key = KEYS[1]
-- Forgets the attempts at or before `cutoff` (they left the window) and all
-- but the newest `keep`.
local function forget(cutoff, keep)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', cutoff)
  redis.call('ZREMRANGEBYRANK', key, 0, -keep - 1)
end
-- The count and the oldest counted time (0, 0 when none).
local function summary()
  local count = redis.call('ZCARD', key)
  if count == 0 then return 0, 0 end
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return count, tonumber(oldest[2])
end
-- Keeps the set until its newest attempt leaves the window (never shorter
-- than it already lives: times may arrive slightly out of order).
local function keepAlive(at, window)
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if not newest[2] then return end
  local ttl = math.floor((tonumber(newest[2]) - at + window) / 1000) + 1
  if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
)lua";

// ARGV: at, cutoff, keep, member, window.
const RedisScript kRecord(kPrologue + R"lua(
redis.call('ZADD', key, ARGV[1], ARGV[4])
forget(ARGV[2], tonumber(ARGV[3]))
keepAlive(tonumber(ARGV[1]), tonumber(ARGV[5]))
local count, oldest = summary()
return {count, oldest}
)lua");

// ARGV: at, cutoff, limit, member, window. Adds only while fewer than
// `limit` are held: of callers racing for the last place one gets it.
const RedisScript kTryRecord(kPrologue + R"lua(
local limit = tonumber(ARGV[3])
forget(ARGV[2], limit)
local admitted = 0
if redis.call('ZCARD', key) < limit then
  redis.call('ZADD', key, ARGV[1], ARGV[4])
  keepAlive(tonumber(ARGV[1]), tonumber(ARGV[5]))
  admitted = 1
end
local count, oldest = summary()
return {admitted, count, oldest}
)lua");

// ARGV: cutoff, keep.
const RedisScript kRecent(kPrologue + R"lua(
forget(ARGV[1], tonumber(ARGV[2]))
local count, oldest = summary()
return {count, oldest}
)lua");

// ARGV: at. One member of exactly that score, whichever.
const RedisScript kRelease(R"lua(
local found = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1], 'LIMIT', 0, 1)
if found[1] then
  redis.call('ZREM', KEYS[1], found[1])
  return {1}
end
return {0}
)lua");

// As MemoryAttemptLog: non-positive limits and windows read as one.
std::int64_t atLeastOne(std::int64_t value) {
  return std::max<std::int64_t>(1, value);
}

std::string setKey(const std::string& key) {
  return "rapport:att:" + key;
}

// "<micros>:<16 hex digits>": unique even for two attempts in one
// microsecond on two instances.
std::string memberFor(std::int64_t atMicros) {
  thread_local std::mt19937_64 random{std::random_device{}()};
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
  return std::to_string(atMicros) + ":" + suffix;
}

AttemptWindow windowOf(const std::vector<std::int64_t>& reply, std::size_t from) {
  if (reply.size() < from + 2) return {};
  return {reply[from], reply[from + 1]};
}

}  // namespace

RedisAttemptLog::RedisAttemptLog(RedisPool& pool) : pool_(pool) {}

std::vector<std::int64_t> RedisAttemptLog::run(const RedisScript& script, const std::string& key,
                                               const std::vector<std::string>& args) {
  try {
    return pool_.eval(script, setKey(key), args);
  } catch (const RedisUnavailable&) {
    // Fail closed (the pool has logged it): without the shared count a
    // guesser spread over instances, or one that took redis down, would be
    // unlimited.
    throw rapport::Error(503, "Service temporarily unavailable. Please try again shortly.")
        .withHeader("Retry-After", "1");
  }
}

AttemptWindow RedisAttemptLog::record(const std::string& key, std::int64_t atMicros,
                                      std::int64_t keep, std::int64_t windowMicros) {
  const std::int64_t window = atLeastOne(windowMicros);
  return windowOf(
      run(kRecord, key,
          {std::to_string(atMicros), std::to_string(atMicros - window),
           std::to_string(atLeastOne(keep)), memberFor(atMicros), std::to_string(window)}),
      0);
}

AttemptWindow RedisAttemptLog::recent(const std::string& key, std::int64_t nowMicros,
                                      std::int64_t keep, std::int64_t windowMicros) {
  const std::int64_t window = atLeastOne(windowMicros);
  return windowOf(
      run(kRecent, key, {std::to_string(nowMicros - window), std::to_string(atLeastOne(keep))}), 0);
}

AttemptAdmission RedisAttemptLog::tryRecord(const std::string& key, std::int64_t atMicros,
                                            std::int64_t limit, std::int64_t windowMicros) {
  const std::int64_t window = atLeastOne(windowMicros);
  const auto reply =
      run(kTryRecord, key,
          {std::to_string(atMicros), std::to_string(atMicros - window),
           std::to_string(atLeastOne(limit)), memberFor(atMicros), std::to_string(window)});
  return {!reply.empty() && reply[0] == 1, windowOf(reply, 1)};
}

void RedisAttemptLog::release(const std::string& key, std::int64_t atMicros) {
  run(kRelease, key, {std::to_string(atMicros)});
}

}  // namespace rapport::host
