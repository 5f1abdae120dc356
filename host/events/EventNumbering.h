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
// committed() is called by storage after each committed transaction that
// emitted (SqlDatabase::setCommittedEventsHook) and only wakes the job
// "events.numbering", which runs one pass per wake-up (wake-ups during a
// pass make one more pass): the writer answers without waiting, and its
// events have their numbers a pass later (milliseconds). Readers of the log
// (EventLogReader: GET /v1/events, webhook replays) call catchUp() first: it
// returns once a pass that began after the call has ended, so a client that
// wrote and then reads sees its events, whichever instance it reads from.
// Concurrent callers of catchUp() share a pass (one runs it, the others wait
// for it). A pass that fails (the database restarted) is logged; the job
// runs again within a second. Without a job runner (tests, tools),
// committed() runs the pass itself.
//
// SQLite needs none of this: its one writer takes the next number inside
// the write's transaction (EventBus.cpp).
//
// Threading: every member from any thread; wakeWith() before the first
// commit.
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

  // After a commit that emitted: wakes the numbering job (a pass soon).
  void committed();
  // Returns once a pass that began after this call has ended: every event
  // committed before the call has its number. Never throws.
  void catchUp();
  // One pass now; returns how many events it numbered (0 when it failed:
  // logged, the next pass numbers them). Never throws.
  std::int64_t pass() noexcept;
  // "events.numbering": a pass when woken, and every second on every
  // instance (a writer that died before the wake-up, a pass that failed).
  // Give the handle the runner returned to wakeWith().
  rapport::Job numberingJob();
  void wakeWith(rapport::JobHandle handle);

 private:
  rapport::Database& db_;
  std::mutex mutex_;
  std::condition_variable passEnded_;
  std::uint64_t requested_ = 0;  // catchUp calls so far
  std::uint64_t served_ = 0;     // calls the last ended pass covered
  bool running_ = false;
  std::mutex wakerMutex_;
  rapport::JobHandle waker_;
};

// Connects the event log to storage: Tx::emit records through `bus`; on
// PostgreSQL each committed transaction that emitted wakes the numbering.
// Returns the numbering (whose numberingJob() the caller runs, and whose
// catchUp() the log's readers call; the database's hook holds it too), or
// nullptr on SQLite. `bus` must outlive
// the database's use.
std::shared_ptr<EventNumbering> connectEventLog(SqlDatabase& db, const EventBus& bus);

}  // namespace rapport::host
