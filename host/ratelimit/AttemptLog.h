// Sliding-window attempt logs (decisions §3: "5 failed logins ... within
// 60 s"), behind an interface so several rapportd instances can share one
// store later, as with RateLimitStore; the embedded default keeps them in
// memory (MemoryAttemptLog).
//
// Why not RateLimitStore: its windows are fixed and aligned to the epoch, so
// failures straddling a window edge escape the count. A log of the recent
// attempt times answers "how many in the last N seconds" exactly. It keeps
// at most `keep` times per key: once that many fall inside the window the
// caller refuses further attempts, so older ones cannot change the answer.
//
// Times are microseconds since the Unix epoch (the unit of every stored
// timestamp), so "within 60 s" is exact rather than rounded to seconds.
//
// Reservations: tryRecord() counts an attempt only when there is room, in
// one step, so callers racing for the last place cannot all take it (the
// login throttle counts an attempt before the password is checked); and
// release() takes a recorded attempt back (a login that succeeded). A shared
// implementation must make both atomic per key (a Redis script, a row
// lock).
#pragma once

#include <cstdint>
#include <string>

namespace rapport::host {

// What a log holds for one key at one moment.
struct AttemptWindow {
  std::int64_t count = 0;     // attempts inside the window, at most `keep`
  std::int64_t oldestAt = 0;  // micros of the oldest counted attempt (0 when count is 0)

  // Whole seconds until the oldest counted attempt leaves the window, at
  // least 1: the Retry-After of a refusal.
  std::int64_t retryAfterSeconds(std::int64_t nowMicros, std::int64_t windowMicros) const;
};

// What tryRecord() decided.
struct AttemptAdmission {
  bool admitted = false;
  AttemptWindow window;  // after the decision
};

class AttemptLog {
 public:
  virtual ~AttemptLog() = default;
  // Records one attempt for `key` at `atMicros`, forgets attempts that left
  // the window (older than windowMicros) and all but the newest `keep`, and
  // returns what remains.
  virtual AttemptWindow record(const std::string& key, std::int64_t atMicros, std::int64_t keep,
                               std::int64_t windowMicros) = 0;
  // The attempts of `key` inside the window ending at `nowMicros`, without
  // recording one.
  virtual AttemptWindow recent(const std::string& key, std::int64_t nowMicros, std::int64_t keep,
                               std::int64_t windowMicros) = 0;
  // Records one attempt at `atMicros` only when fewer than `limit` fall
  // inside the window ending then, atomically: of callers racing for the
  // last place exactly one gets it. Returns whether it was recorded and the
  // window afterwards (when refused: the `limit` attempts that fill it).
  virtual AttemptAdmission tryRecord(const std::string& key, std::int64_t atMicros,
                                     std::int64_t limit, std::int64_t windowMicros) = 0;
  // Takes back one attempt of `key` recorded at exactly `atMicros`; nothing
  // when none is held (it left the window, or was pushed out by newer ones).
  virtual void release(const std::string& key, std::int64_t atMicros) = 0;
};

}  // namespace rapport::host
