#include "storage/WriterGate.h"

#include <algorithm>

#include "log/RequestScope.h"
#include "rapport/db.h"

namespace rapport::host {

WriterGate::WriterGate(bool enabled, std::chrono::milliseconds timeout)
    : enabled_(enabled), timeout_(timeout) {}

WriterGate::Pass WriterGate::enter() {
  if (!enabled_) return Pass();
  if (owner_.load() == std::this_thread::get_id()) {
    throw DbError(DbError::Kind::Busy,
                  "database is locked (a write beside this thread's own open transaction)");
  }
  std::unique_lock lock(mutex_);
  if (!busy_ && background_.empty() && requests_.empty()) {
    busy_ = true;
  } else {
    // Queued; leave() hands the turn over to the first waiter directly.
    Waiter self;
    auto& queue = queueFor(RequestScope::current().empty());
    queue.push_back(&self);
    if (!self.turn.wait_for(lock, timeout_, [&] { return self.granted; })) {
      queue.erase(std::find(queue.begin(), queue.end(), &self));
      throw DbError(DbError::Kind::Busy, "database is locked (waited for another writer)");
    }
  }
  owner_.store(std::this_thread::get_id());
  return Pass(this);
}

std::size_t WriterGate::waiting() {
  std::lock_guard lock(mutex_);
  return background_.size() + requests_.size();
}

void WriterGate::leave() {
  owner_.store(std::thread::id());
  std::lock_guard lock(mutex_);
  auto& queue = background_.empty() ? requests_ : background_;
  if (queue.empty()) {
    busy_ = false;
    return;
  }
  // The turn passes on (busy_ stays true). Notified under the lock: the
  // waiter's condition variable lives on its stack until it sees `granted`.
  Waiter* next = queue.front();
  queue.pop_front();
  next->granted = true;
  next->turn.notify_one();
}

}  // namespace rapport::host
