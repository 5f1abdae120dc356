#include "storage/GroupCommit.h"

#include <algorithm>
#include <utility>

#include "log/RequestScope.h"
#include "storage/Connection.h"
#include "storage/ErrorMapping.h"

namespace rapport::host {
namespace {

// Whether this thread is running a batch: a write from inside a member's
// work would wait for the batch it is part of.
thread_local bool tLeading = false;

class LeadingScope {
 public:
  LeadingScope() { tLeading = true; }
  ~LeadingScope() { tLeading = false; }
  LeadingScope(const LeadingScope&) = delete;
  LeadingScope& operator=(const LeadingScope&) = delete;
};

// One name serves every member: each savepoint is released or rolled back
// before the next member's opens.
constexpr const char* kSavepoint = "SAVEPOINT rapport_member";
constexpr const char* kRelease = "RELEASE rapport_member";
constexpr const char* kRollbackTo = "ROLLBACK TO rapport_member";

// Runs `work` in its own savepoint. Returns what it threw, after undoing its
// changes; throws only when the savepoint itself cannot be handled, which
// loses the batch.
std::exception_ptr runInSavepoint(Connection& connection, const GroupCommit::Work& work) {
  connection.run(kSavepoint, {});
  std::exception_ptr thrown;
  try {
    work(connection);
  } catch (...) {
    thrown = std::current_exception();
  }
  if (!connection.inTransaction()) return thrown;  // the engine ended it: the batch is lost
  if (thrown) connection.run(kRollbackTo, {});
  connection.run(kRelease, {});
  return thrown;
}

// The error of every member of a batch the engine rolled back: the engine's
// own when the work saw it, else a plain statement of the loss.
DbError lostBatchError(const std::exception_ptr& thrown) {
  if (thrown) {
    try {
      std::rethrow_exception(thrown);
    } catch (const DbError& error) {
      return error;
    } catch (...) {
    }
  }
  return DbError(DbError::Kind::Other, "the write transaction was rolled back by the database");
}

}  // namespace

GroupCommit::GroupCommit(Begin begin, std::size_t maxMembers, std::chrono::milliseconds timeout,
                         BeforeCommit beforeCommit)
    : begin_(std::move(begin)),
      beforeCommit_(std::move(beforeCommit)),
      maxMembers_(std::max<std::size_t>(1, maxMembers)),
      timeout_(timeout) {}

void GroupCommit::run(const Work& work) {
  if (tLeading) {
    throw DbError(DbError::Kind::Busy,
                  "database is locked (a write beside this thread's own open transaction)");
  }
  Member self;
  self.work = &work;
  self.requestId = RequestScope::current();
  self.actor = RequestScope::actor();
  {
    std::unique_lock lock(mutex_);
    queueOf(self).push_back(&self);
    if (leading_) {
      awaitTurn(lock, self);
    } else {
      leading_ = true;
      self.lead = true;
    }
  }
  if (!self.done) lead(self);
  // `done` was seen under the lock (or set by this thread): the fields are final.
  if (self.failure) throw *self.failure;
  if (self.thrown) std::rethrow_exception(self.thrown);
}

// Waits until the member's batch ended or the member is to lead. A member no
// batch has started gives up after the timeout.
void GroupCommit::awaitTurn(std::unique_lock<std::mutex>& lock, Member& self) {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (!self.done && !self.lead) {
    if (self.started) {
      self.wake.wait(lock);  // its work is in a batch: only the COMMIT ends the wait
    } else if (self.wake.wait_until(lock, deadline) == std::cv_status::timeout && !self.started &&
               !self.done && !self.lead) {
      auto& queue = queueOf(self);
      queue.erase(std::find(queue.begin(), queue.end(), &self));
      throw DbError(DbError::Kind::Busy, "database is locked (waited for another writer)");
    }
  }
}

// Runs batches until the leader's own write is in a committed one, then
// passes the lead to the first queued write (one wake-up per batch).
void GroupCommit::lead(Member& self) {
  {
    LeadingScope leading;
    while (!self.done) runBatch();
  }
  std::lock_guard lock(mutex_);
  std::deque<Member*>& queue = servedFirst();
  if (queue.empty()) {
    leading_ = false;
    return;
  }
  Member* heir = queue.front();
  heir->lead = true;
  heir->wake.notify_one();
}

// The next queued write, marked started; nullptr when none waits.
GroupCommit::Member* GroupCommit::next() {
  std::lock_guard lock(mutex_);
  std::deque<Member*>& queue = servedFirst();
  if (queue.empty()) return nullptr;
  Member* member = queue.front();
  queue.pop_front();
  member->started = true;
  ++stats_.members;
  return member;
}

void GroupCommit::runBatch() {
  std::vector<Member*> members;
  std::optional<SessionPool::Lease> lease;
  try {
    lease.emplace(begin_());
  } catch (...) {
    // Nothing ran: the writes this batch would have held get the error.
    const DbError error = currentDbError();
    while (members.size() < maxMembers_) {
      Member* member = next();
      if (member == nullptr) break;
      members.push_back(member);
    }
    settle(members, error);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    ++stats_.batches;
  }
  Connection& connection = **lease;
  std::optional<DbError> failure;
  while (!failure && members.size() < maxMembers_) {
    Member* member = next();
    if (member == nullptr) break;
    members.push_back(member);
    try {
      RequestScope scope(member->requestId, member->actor);
      member->thrown = runInSavepoint(connection, *member->work);
      if (!connection.inTransaction()) failure = lostBatchError(member->thrown);
    } catch (...) {
      failure = currentDbError();
    }
  }
  if (!failure) {
    try {
      // Outside every member's savepoint; a failure loses the whole batch.
      if (beforeCommit_) beforeCommit_(connection);
      connection.commit();
    } catch (...) {
      failure = currentDbError();
    }
  }
  if (failure) {
    try {
      connection.rollback();
    } catch (...) {
      lease->discard();
    }
  }
  lease.reset();  // back to the pool before the writers go on
  settle(members, failure);
}

void GroupCommit::settle(const std::vector<Member*>& members,
                         const std::optional<DbError>& failure) {
  std::lock_guard lock(mutex_);
  for (Member* member : members) {
    member->failure = failure;
    member->done = true;
    member->wake.notify_one();  // under the lock: the member lives until it sees `done`
  }
}

std::size_t GroupCommit::waiting() {
  std::lock_guard lock(mutex_);
  return background_.size() + requests_.size();
}

GroupCommit::Stats GroupCommit::stats() {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace rapport::host
