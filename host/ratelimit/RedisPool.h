// The connections of one rapportd to the redis-server that several instances
// share (ratelimit.store = redis): a small pool, and Lua scripts run on it.
//
// Every operation of the Redis stores is one script (EVALSHA, loaded with
// EVAL the first time a server lacks it), so each is atomic on the server
// whatever the number of instances and threads.
//
// Failures: a connect, read or write that fails or takes longer than
// `timeout` (1 s by default), and an error reply, throw RedisUnavailable. A
// connection that failed is dropped, never reused (its protocol state is
// unknown); a pooled connection that fails is tried once more on a new one
// (the server may have restarted). After a failed connect the pool fails fast for `backoff`
// (1 s) instead of making every request wait for a server that is gone.
// Failures are logged as a warning at most once per 10 s.
//
// Threading: every member may be called from any thread; a connection serves
// one caller at a time. The pool holds as many connections as callers were
// ever busy at once (bounded by the server's worker threads).
#pragma once

#include <Poco/Redis/Array.h>
#include <Poco/Redis/Client.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "ratelimit/RedisUrl.h"

namespace rapport::host {

// Redis could not answer (down, unreachable, too slow, or an error reply).
class RedisUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A Lua script and its SHA-1 (what EVALSHA names it by).
struct RedisScript {
  explicit RedisScript(std::string source);
  std::string source;
  std::string sha1;
};

class RedisPool {
 public:
  struct Options {
    std::chrono::milliseconds timeout{1000};  // connect, and each reply
    std::chrono::milliseconds backoff{1000};  // no connect tried after a failed one
  };

  // Connects lazily: call ping() to check the server at start-up.
  explicit RedisPool(RedisUrl url, Options options);
  ~RedisPool();
  RedisPool(const RedisPool&) = delete;
  RedisPool& operator=(const RedisPool&) = delete;

  // Runs `script` with KEYS[1] = `key` and ARGV = `args`; returns its reply,
  // which must be an array of integers. Throws RedisUnavailable.
  std::vector<std::int64_t> eval(const RedisScript& script, const std::string& key,
                                 const std::vector<std::string>& args);
  // PING; throws RedisUnavailable naming the server (never the password).
  void ping();

  const RedisUrl& url() const { return url_; }

 private:
  using Connection = std::unique_ptr<Poco::Redis::Client>;

  Connection takeIdle();  // null when none is idle
  Connection connect();
  void giveBack(Connection connection);
  // Runs `command` on a pooled connection; the reply as Redis sent it.
  Poco::Redis::RedisType::Ptr run(const Poco::Redis::Array& command);
  [[noreturn]] void fail(const std::string& reason);

  RedisUrl url_;
  Options options_;
  std::mutex mutex_;
  std::vector<Connection> idle_;
  // steady_clock ticks before which no connect is tried (after a failed one).
  std::atomic<std::int64_t> connectAfter_{0};
  std::atomic<std::int64_t> nextWarning_{0};  // steady_clock ticks
};

}  // namespace rapport::host
