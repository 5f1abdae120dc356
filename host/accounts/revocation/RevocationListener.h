// Revocation notices across instances (PostgreSQL only; TokenService.h).
//
// Whoever revokes a token or changes an identity sends
// pg_notify('rapport_auth', "t:<token_id>" | "u:<user_id>") in the
// transaction that makes the change. This listener keeps one libpq
// connection of its own (Poco Data cannot LISTEN), LISTENs on that channel
// and hands every payload to TokenService::applyNotice, so each instance
// drops the matching cache entries within milliseconds of the commit.
//
// State: once LISTEN succeeded it calls TokenService::setNoticesLive(true)
// (the cache is cleared first: notices sent while nobody listened are lost),
// and cache hits stop costing a query. When the connection is lost (database
// restart, pg_terminate_backend, network: TCP keepalives detect a silent
// peer), it calls setNoticesLive(false) at once, so hits are confirmed in the
// database again, and reconnects with a backoff (minBackoff doubling up to
// maxBackoff). Every transition is logged (never the connection string).
//
// The thread waits in poll() on the connection's socket and on a pipe that
// stop() writes to, so stop() returns promptly whatever the database does
// (a connection attempt in progress included: it is made non-blocking).
//
// Threading: start() and stop() from one thread (the server's); the
// observers (listening, connections, backendPid) from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "accounts/TokenService.h"

struct pg_conn;

namespace rapport::host::accounts {

struct RevocationListenerOptions {
  std::chrono::milliseconds minBackoff{200};
  std::chrono::milliseconds maxBackoff{5000};
  // A connection attempt (TCP, TLS, authentication) that takes longer fails.
  std::chrono::milliseconds connectTimeout{5000};
};

class RevocationListener {
 public:
  // `conninfo`: libpq's "key=value ..." form of database.url
  // (storage/DatabaseUrl.h). TCP keepalives are added unless it sets them.
  RevocationListener(std::string conninfo, TokenService& tokens,
                     RevocationListenerOptions options = {});
  ~RevocationListener();
  RevocationListener(const RevocationListener&) = delete;
  RevocationListener& operator=(const RevocationListener&) = delete;

  // Starts the thread; it connects in the background.
  void start();
  // Stops the thread and closes the connection (notices are then not live);
  // safe to call twice.
  void stop();

  // True while LISTEN is active on a live connection.
  bool listening() const;
  // Waits up to `limit` for listening() (start-up); returns it.
  bool waitUntilListening(std::chrono::milliseconds limit) const;
  // How many times LISTEN succeeded (1 after start-up, +1 per reconnection).
  std::uint64_t connections() const { return connections_.load(); }
  // The server process of the listening connection (0 when none), for tests
  // that terminate it.
  int backendPid() const { return backendPid_.load(); }

 private:
  enum class Ended { Stopped, Lost };

  void run();
  pg_conn* connect();
  bool listen(pg_conn* conn);
  Ended serve(pg_conn* conn);
  // Sleeps up to `duration`; false when stop() was called.
  bool pause(std::chrono::milliseconds duration);
  // Waits until `fd` is ready for `events` or the deadline; -1 when stopping.
  int waitFor(int fd, short events, std::chrono::steady_clock::time_point deadline);
  void setListening(bool listening);

  std::string conninfo_;
  TokenService& tokens_;
  RevocationListenerOptions options_;
  std::thread thread_;
  int wakeRead_ = -1;
  int wakeWrite_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> connections_{0};
  std::atomic<int> backendPid_{0};
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool listening_ = false;
};

}  // namespace rapport::host::accounts
