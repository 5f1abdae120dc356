// A bounded pool of database sessions.
//
// Not Poco's SessionPool: that one throws at once when exhausted and hands
// out sessions the server already dropped. This one creates sessions lazily
// up to its capacity, makes borrowers wait (up to the acquire timeout) for a
// session to come back, and closes sessions that failed at the connection
// level instead of lending them again.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "storage/Connection.h"

namespace rapport::host {

class SessionPool {
 public:
  using Factory = std::function<std::unique_ptr<Connection>()>;

  SessionPool(Factory factory, std::size_t capacity, std::chrono::milliseconds acquireTimeout);
  ~SessionPool();
  SessionPool(const SessionPool&) = delete;
  SessionPool& operator=(const SessionPool&) = delete;

  // A borrowed session; it goes back to the pool when the lease ends.
  class Lease {
   public:
    Lease(SessionPool& pool, std::unique_ptr<Connection> connection);
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    ~Lease();

    Connection& operator*() const { return *connection_; }
    Connection* operator->() const { return connection_.get(); }
    // Close the session instead of lending it again.
    void discard() { discard_ = true; }
    // Give the session back now (the lease is empty afterwards).
    void release();

   private:
    SessionPool* pool_;
    std::unique_ptr<Connection> connection_;
    bool discard_ = false;
  };

  // Waits up to the acquire timeout for a session; throws
  // DbError(Busy, "database pool exhausted") then, or the DbError of a
  // failed connection attempt.
  Lease acquire();
  // Opens `count` sessions now (capped at the capacity): the first request
  // finds one ready, and a wrong URL or password fails at startup.
  void prewarm(std::size_t count);
  // Closes every idle session: after one was found dead while idle, its
  // siblings most likely died with it (server restart, failover).
  void discardIdle();

  // For tests: borrowers waiting right now, and a way to wait for them.
  std::size_t waiting() const;
  bool awaitWaiting(std::size_t count, std::chrono::milliseconds timeout) const;

 private:
  std::unique_ptr<Connection> open();
  void giveBack(std::unique_ptr<Connection> connection, bool discard);
  static bool reusable(Connection& connection);
  void dropOne();

  Factory factory_;
  const std::size_t capacity_;
  const std::chrono::milliseconds acquireTimeout_;

  mutable std::mutex mutex_;
  std::condition_variable available_;
  mutable std::condition_variable waitersChanged_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::size_t total_ = 0;  // idle + lent + being opened
  std::size_t waiting_ = 0;
};

}  // namespace rapport::host
