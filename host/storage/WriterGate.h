// One writer at a time, queued in this process, for SQLite.
//
// SQLite allows one writer per database. A writer that finds the lock taken
// waits in SQLite's busy handler, which sleeps and polls (1, 2, 5, ... up to
// 100 ms between tries), so under concurrent writes most writers wait far
// longer than the lock is held: 32 clients creating contacts got 148
// creates/s with a p99 of 1.7 s (bench/results, 2026-11-21). Writers of this
// process therefore queue on a mutex before BEGIN IMMEDIATE (or an
// autocommit write), and find SQLite's lock free when their turn comes.
// Another process on the file (`rapportd migrate`, sqlite3 by hand) still
// meets the busy handler.
//
// The queue is fair: writers enter in arrival order (a plain mutex let some
// wait far longer than others under load). Writers outside any request
// (jobs: webhook deliveries claiming and recording their attempts, the
// retention purges) enter before waiting request writers: their writes are
// few and short, and every millisecond they wait behind a burst of API
// writes is added to a webhook's delivery latency (docs/performance.md,
// "Webhooks").
//
// PostgreSQL has row locks and needs none: the gate is then open.
//
// Threading: every member is thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

namespace rapport::host {

class WriterGate {
 public:
  // `timeout`: how long a writer waits for its turn before DbError (Busy).
  WriterGate(bool enabled, std::chrono::milliseconds timeout);

  // Holds the turn until destroyed (or release()); an open gate holds nothing.
  class Pass {
   public:
    Pass() = default;
    explicit Pass(WriterGate* gate) : gate_(gate) {}
    Pass(Pass&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {}
    Pass& operator=(Pass&&) = delete;
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;
    ~Pass() { release(); }
    void release() {
      if (gate_ != nullptr) std::exchange(gate_, nullptr)->leave();
    }

   private:
    WriterGate* gate_ = nullptr;
  };

  // Waits for the turn (background writers first, then in arrival order).
  // Throws DbError (Busy) after the timeout, as SQLite would, and at once
  // when this thread already holds the turn (a write outside the
  // transaction this thread has open would wait for itself).
  Pass enter();

  // Writers waiting for their turn now (for tests and diagnostics).
  std::size_t waiting();

 private:
  // One queued writer; leave() wakes exactly the next one.
  struct Waiter {
    bool granted = false;
    std::condition_variable turn;
  };
  void leave();
  std::deque<Waiter*>& queueFor(bool background) { return background ? background_ : requests_; }

  bool enabled_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  bool busy_ = false;
  std::deque<Waiter*> background_;  // writers outside requests, served first
  std::deque<Waiter*> requests_;
  std::atomic<std::thread::id> owner_;
};

}  // namespace rapport::host
