// SQLite's writes: one writer at a time, and one COMMIT for the writes that
// queued while the previous batch was being written.
//
// SQLite allows one writer per database, and a COMMIT writes every page the
// transaction touched to the WAL. With each contact create committing alone,
// a fifth of the CPU went to those writes and creates stopped near 1,100/s
// (docs/performance.md). So the writes of this process queue here, and the
// first writer to find no batch running becomes the leader: it opens a
// transaction (BEGIN IMMEDIATE) on one session, runs the queued writes one
// after the other on that session, each inside a SAVEPOINT of its own, then
// commits them all at once and wakes their writers. Writes that arrive
// meanwhile wait for the next batch, which the first of them leads.
//   - Every writer returns only after the COMMIT that stored its work: an
//     answer is never sent for a change that is not committed.
//   - A write that throws rolls back to its savepoint: its own changes are
//     undone, the other members' are kept, and its writer gets what it threw.
//   - When the engine ends the transaction itself (an I/O error, a full
//     disk) or the COMMIT fails, every member of the batch gets that error:
//     none of their work was stored.
//   - The leader runs each member's work under the member's request scope
//     (the event log and log lines name the member's request). Work must not
//     depend on its own thread otherwise (the SDK's rule for Database work).
//   - Order: writes outside any request (jobs: webhook deliveries, retention
//     purges) go before queued request writes; their writes are short and
//     each millisecond they wait delays a webhook. Otherwise arrival order.
//   - A write waiting for a batch that has not started it gives up with
//     DbError (Busy) after the timeout, as SQLite's own busy handler would.
//     Once started it waits for the COMMIT, however long.
//   - A write from inside a write (a module's autocommit write in its own
//     transaction callback) would wait for itself: it throws DbError (Busy)
//     at once.
//   - After the last member and before the COMMIT the leader runs the hook
//     it was given, outside every member's savepoint: on SQLite the search
//     index of the batch's rows, written once (SearchQueue.h). When the hook
//     throws, nothing is committed and every member gets the error.
// Why a leader rather than turns passed from thread to thread: on two cores
// a hand-over costs a wake-up and a context switch per write, during which
// the database sits idle; the leader runs the whole batch without one.
//
// PostgreSQL needs none of this (row locks, concurrent writers, its own group
// commit of the WAL flush): SqlDatabase uses GroupCommit on SQLite only.
//
// Threading: every member is thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rapport/db.h"
#include "rapport/events.h"
#include "storage/SessionPool.h"

namespace rapport::host {

class Connection;

class GroupCommit {
 public:
  using Work = std::function<void(Connection&)>;
  // Opens a session in a write transaction (the caller's retry rules).
  using Begin = std::function<SessionPool::Lease()>;
  // Runs in the batch's transaction after its last member (none: nothing).
  using BeforeCommit = std::function<void(Connection&)>;

  // `maxMembers`: a batch commits once it holds this many writes, which
  // bounds the wait of its first member. `timeout`: the longest wait of a
  // write that no batch has started.
  GroupCommit(Begin begin, std::size_t maxMembers, std::chrono::milliseconds timeout,
              BeforeCommit beforeCommit = {});

  // Runs `work` in a batch and returns once the batch is committed. Throws
  // what `work` threw (its changes rolled back, the others' kept), the
  // DbError that lost the whole batch, or DbError (Busy) as above.
  void run(const Work& work);

  // Writes queued and not started yet (tests, diagnostics).
  std::size_t waiting();

  // Counters since construction (tests, diagnostics).
  struct Stats {
    std::uint64_t batches = 0;  // transactions opened
    std::uint64_t members = 0;  // writes run in them
  };
  Stats stats();

 private:
  // One queued write, on its writer's stack until `done`.
  struct Member {
    const Work* work = nullptr;
    std::string requestId;
    rapport::Actor actor;  // RequestScope's, for the events its work records
    bool started = false;  // a leader took it
    bool done = false;     // its batch ended: the fields below are final
    bool lead = false;     // it leads the next batch
    std::exception_ptr thrown;
    std::optional<DbError> failure;  // the batch was lost
    std::condition_variable wake;
  };

  void awaitTurn(std::unique_lock<std::mutex>& lock, Member& self);
  void lead(Member& self);
  Member* next();
  void runBatch();
  void settle(const std::vector<Member*>& members, const std::optional<DbError>& failure);
  // The queue the next write comes from: jobs' writes first.
  std::deque<Member*>& servedFirst() { return background_.empty() ? requests_ : background_; }
  std::deque<Member*>& queueOf(const Member& member) {
    return member.requestId.empty() ? background_ : requests_;
  }

  Begin begin_;
  BeforeCommit beforeCommit_;
  std::size_t maxMembers_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;  // guards everything below and every queued Member
  bool leading_ = false;
  std::deque<Member*> background_;  // writes outside requests, served first
  std::deque<Member*> requests_;
  Stats stats_;
};

}  // namespace rapport::host
