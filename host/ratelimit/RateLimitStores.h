// Where rate limits and the login throttle keep their counts, chosen by
// ratelimit.store (decisions §9, §12):
//   memory  this process's memory (MemoryRateLimitStore, MemoryAttemptLog):
//           one rapportd
//   redis   the redis-server at redis.url (RedisRateLimitStore,
//           RedisAttemptLog over one RedisPool), shared by every instance
//           behind one load balancer
// docs/deploy.md says what several instances share and what they do not.
#pragma once

#include <memory>
#include <string>

#include "rapport/config.h"
#include "ratelimit/AttemptLog.h"
#include "ratelimit/RateLimitStore.h"
#include "ratelimit/RedisPool.h"

namespace rapport::host {

struct RateLimitStores {
  std::unique_ptr<RedisPool> redis;  // ratelimit.store = redis only; before the stores using it
  std::unique_ptr<RateLimitStore> requests;  // the Pipeline's per-token / per-address limit
  std::unique_ptr<AttemptLog> attempts;      // the login throttle, forgot/reset-password
  // "memory" or the redis URL without its password, for the start-up log.
  std::string description;
};

// Reads ratelimit.store and redis.url. Throws std::invalid_argument for an
// unknown store or a malformed URL, and std::runtime_error naming the URL
// (never its password) when redis does not answer PING: a server that would
// count nothing, or refuse every login, must not start.
RateLimitStores openRateLimitStores(const rapport::Config& config);

}  // namespace rapport::host
