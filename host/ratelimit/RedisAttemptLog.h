// The shared attempt log (AttemptLog.h): the login throttle's sliding windows
// (and forgot/reset-password's) kept in redis, so that several rapportd
// count a guesser's attempts together wherever the load balancer sends them.
//
// One sorted set per key, "rapport:att:<key>" (the throttle's keys: an
// e-mail and a client key, never a password or a token), scored by the
// attempt's microseconds; each member is "<micros>:<random>" so two attempts
// in one microsecond are two members. Every operation is one Lua script:
// drop what left the window (ZREMRANGEBYSCORE) and all but the newest
// `keep` (ZREMRANGEBYRANK), count (ZCARD), add (ZADD) when there is room,
// and extend the set's lifetime to the newest attempt's window end
// (PEXPIRE): atomic per key across instances, as AttemptLog requires.
// release(key, at) removes one member whose score is exactly `at`.
//
// Redis down: fails CLOSED. Every operation throws rapport::Error 503
// ("Service temporarily unavailable.", Retry-After: 1): a login cannot be
// checked against the shared count, and an attacker who can knock redis
// over must not get unlimited password guesses. The redis pool logs the
// outage at most once per 10 s.
//
// Threading: as RedisPool, any number of threads.
#pragma once

#include "ratelimit/AttemptLog.h"
#include "ratelimit/RedisPool.h"

namespace rapport::host {

class RedisAttemptLog final : public AttemptLog {
 public:
  // `pool` must outlive the log.
  explicit RedisAttemptLog(RedisPool& pool);

  AttemptWindow record(const std::string& key, std::int64_t atMicros, std::int64_t keep,
                       std::int64_t windowMicros) override;
  AttemptWindow recent(const std::string& key, std::int64_t nowMicros, std::int64_t keep,
                       std::int64_t windowMicros) override;
  AttemptAdmission tryRecord(const std::string& key, std::int64_t atMicros, std::int64_t limit,
                             std::int64_t windowMicros) override;
  void release(const std::string& key, std::int64_t atMicros) override;

 private:
  // Runs `script` on the key's set; throws rapport::Error 503 when redis
  // does not answer.
  std::vector<std::int64_t> run(const RedisScript& script, const std::string& key,
                                const std::vector<std::string>& args);

  RedisPool& pool_;
};

}  // namespace rapport::host
