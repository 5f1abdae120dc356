// The event log's numbers on PostgreSQL (docs/events.md, "Numbering"):
// events are numbered after their transaction commits, by a short
// transaction of their own (the function events_number of migration 0016),
// never while a writer holds anything.
//
// Why: a number taken inside the writer's transaction must be held until
// that transaction's commit ends, or a reader could see number 6 before 5
// commits and skip 5 for good. Held across the commit (0003's deferred
// trigger did that), it made every commit of a company wait for the one
// before it to reach the disk: one company's writes were capped by its WAL
// flushes (issue 25). Now a writer inserts its events with a provisional
// negative number, commits, and then a pass numbers every event that
// committed unnumbered, of every company, under one advisory lock: passes
// follow each other (each one's numbers come after the last one's, and a
// reader sees a pass's numbers all at once, at its commit), and one pass,
// one commit, numbers the events of every writer that committed before it
// began, so under load one pass serves many writes.
//
// afterCommit() is called by storage after each committed transaction that
// emitted (SqlDatabase::setCommittedEventsHook): the request answers only
// once its events have their numbers, so a client that wrote and then reads
// GET /v1/events sees its events. Concurrent callers share a pass (one runs
// it, the others wait for it, then one runs the next for those that came
// during it); a pass that fails (the database restarted) is logged, and the
// sweep job numbers what it left.
//
// SQLite needs none of this: its one writer takes the next number inside
// the write's transaction (EventBus.cpp).
//
// Threading: afterCommit() and sweep() from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "rapport/db.h"
#include "rapport/jobs.h"

namespace rapport::host {

class EventBus;
class SqlDatabase;

class EventNumbering {
 public:
  explicit EventNumbering(rapport::Database& db) : db_(db) {}

  // Returns once a pass that began after this call has ended: the events
  // the caller committed have their numbers. Never throws.
  void afterCommit();
  // One pass now (writers that died between their commit and their pass, a
  // pass that failed); returns how many events it numbered.
  std::int64_t sweep();
  // The sweep, every second on every instance ("events.numbering").
  rapport::Job sweepJob();

 private:
  std::int64_t pass() noexcept;

  rapport::Database& db_;
  std::mutex mutex_;
  std::condition_variable passEnded_;
  std::uint64_t requested_ = 0;  // afterCommit calls so far
  std::uint64_t served_ = 0;     // calls the last ended pass covered
  bool running_ = false;
};

// Connects the event log to storage: Tx::emit records through `bus`; on
// PostgreSQL each committed transaction that emitted has its events
// numbered. Returns the numbering (whose sweepJob() the caller runs; the
// database's hook holds it too), or nullptr on SQLite. `bus` must outlive
// the database's use.
std::shared_ptr<EventNumbering> connectEventLog(SqlDatabase& db, const EventBus& bus);

}  // namespace rapport::host
