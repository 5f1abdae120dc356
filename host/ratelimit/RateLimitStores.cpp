#include "ratelimit/RateLimitStores.h"

#include <stdexcept>

#include "ratelimit/MemoryAttemptLog.h"
#include "ratelimit/MemoryRateLimitStore.h"
#include "ratelimit/RedisAttemptLog.h"
#include "ratelimit/RedisRateLimitStore.h"

namespace rapport::host {

RateLimitStores openRateLimitStores(const rapport::Config& config) {
  const std::string store = config.getString("ratelimit.store", "memory");
  RateLimitStores out;
  if (store == "memory") {
    out.requests = std::make_unique<MemoryRateLimitStore>();
    out.attempts = std::make_unique<MemoryAttemptLog>();
    out.description = "memory";
    return out;
  }
  if (store != "redis") {
    throw std::invalid_argument("ratelimit.store must be memory or redis (got '" + store + "')");
  }
  RedisUrl url = parseRedisUrl(config.getString("redis.url", "redis://127.0.0.1:6379"));
  out.description = url.description;
  out.redis = std::make_unique<RedisPool>(std::move(url), RedisPool::Options{});
  try {
    out.redis->ping();
  } catch (const RedisUnavailable& e) {
    throw std::runtime_error(std::string("ratelimit.store is redis but ") + e.what());
  }
  out.requests = std::make_unique<RedisRateLimitStore>(*out.redis);
  out.attempts = std::make_unique<RedisAttemptLog>(*out.redis);
  return out;
}

}  // namespace rapport::host
