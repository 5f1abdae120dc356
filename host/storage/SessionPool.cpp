#include "storage/SessionPool.h"

#include <algorithm>
#include <utility>

#include "metrics/Metrics.h"

namespace rapport::host {

SessionPool::SessionPool(Factory factory, std::size_t capacity,
                         std::chrono::milliseconds acquireTimeout)
    : factory_(std::move(factory)),
      capacity_(std::max<std::size_t>(capacity, 1)),
      acquireTimeout_(acquireTimeout) {}

SessionPool::~SessionPool() = default;

SessionPool::Lease SessionPool::acquire() {
  std::unique_lock lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() + acquireTimeout_;
  bool waited = false;  // counted once per acquisition, however often it wakes
  for (;;) {
    if (!idle_.empty()) {
      // Most recently returned first: its statements are warm.
      std::unique_ptr<Connection> connection = std::move(idle_.back());
      idle_.pop_back();
      metrics::poolSessionLent();
      return Lease(*this, std::move(connection));
    }
    if (total_ < capacity_) {
      ++total_;  // reserve the place, connect without holding the lock
      lock.unlock();
      std::unique_ptr<Connection> connection = open();
      metrics::poolSessionLent();
      return Lease(*this, std::move(connection));
    }
    if (!waited) metrics::poolAcquireWaited();
    waited = true;
    ++waiting_;
    waitersChanged_.notify_all();
    const bool woken = available_.wait_until(
        lock, deadline, [this] { return !idle_.empty() || total_ < capacity_; });
    --waiting_;
    waitersChanged_.notify_all();
    if (!woken) {
      metrics::poolAcquireTimedOut();
      throw DbError(DbError::Kind::Busy, "database pool exhausted");
    }
  }
}

std::unique_ptr<Connection> SessionPool::open() {
  try {
    return factory_();
  } catch (...) {
    dropOne();
    throw;
  }
}

void SessionPool::prewarm(std::size_t count) {
  std::vector<Lease> leases;
  for (std::size_t i = 0; i < std::min(count, capacity_); ++i) leases.push_back(acquire());
}

void SessionPool::discardIdle() {
  std::vector<std::unique_ptr<Connection>> doomed;
  {
    std::lock_guard lock(mutex_);
    doomed.swap(idle_);
    total_ -= doomed.size();
  }
  available_.notify_all();
  // `doomed` closes its sessions here, outside the lock.
}

void SessionPool::giveBack(std::unique_ptr<Connection> connection, bool discard) {
  metrics::poolSessionReturned();
  if (!discard && reusable(*connection)) {
    connection->markServed();
    {
      std::lock_guard lock(mutex_);
      idle_.push_back(std::move(connection));
    }
    available_.notify_one();
    return;
  }
  connection.reset();  // closing may take a round trip: not under the lock
  dropOne();
}

// A session goes back only healthy and outside any transaction: after an
// error inside a PostgreSQL transaction every statement fails until ROLLBACK.
bool SessionPool::reusable(Connection& connection) {
  if (connection.broken()) return false;
  try {
    connection.rollback();
    connection.sweep();
  } catch (...) {
    return false;  // it cannot even roll back: close it
  }
  return !connection.broken();
}

void SessionPool::dropOne() {
  {
    std::lock_guard lock(mutex_);
    --total_;
  }
  available_.notify_one();
}

std::size_t SessionPool::waiting() const {
  std::lock_guard lock(mutex_);
  return waiting_;
}

bool SessionPool::awaitWaiting(std::size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return waitersChanged_.wait_for(lock, timeout, [&] { return waiting_ >= count; });
}

SessionPool::Lease::Lease(SessionPool& pool, std::unique_ptr<Connection> connection)
    : pool_(&pool), connection_(std::move(connection)) {}

SessionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), connection_(std::move(other.connection_)), discard_(other.discard_) {}

SessionPool::Lease::~Lease() {
  release();
}

void SessionPool::Lease::release() {
  if (connection_) pool_->giveBack(std::move(connection_), discard_);
}

}  // namespace rapport::host
