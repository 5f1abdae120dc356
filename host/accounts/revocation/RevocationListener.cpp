#include "accounts/revocation/RevocationListener.h"

#include <fcntl.h>
#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

#include "log/Log.h"

namespace rapport::host::accounts {

namespace {

using SteadyClock = std::chrono::steady_clock;

// A peer that vanished without closing (network cut, host down) is noticed
// within about 5 + 2 * 3 seconds instead of the kernel's two hours.
std::string withKeepalives(std::string conninfo) {
  if (conninfo.find("keepalives") == std::string::npos) {
    conninfo += " keepalives=1 keepalives_idle=5 keepalives_interval=2 keepalives_count=3";
  }
  // Names the connection in pg_stat_activity (the last value of a key wins).
  return conninfo + " application_name=rapport-revocations";
}

// libpq's message on one line (it never holds the password).
std::string errorOf(const PGconn* conn) {
  const std::string text = conn != nullptr ? PQerrorMessage(conn) : "out of memory";
  std::string message;
  for (const char c : text) {
    const bool space = c == '\n' || c == '\t' || c == ' ';
    if (space && (message.empty() || message.back() == ' ')) continue;
    message += space ? ' ' : c;
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  return message;
}

}  // namespace

RevocationListener::RevocationListener(std::string conninfo, TokenService& tokens,
                                       RevocationListenerOptions options)
    : conninfo_(withKeepalives(std::move(conninfo))), tokens_(tokens), options_(options) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw std::runtime_error("revocation listener: cannot create its wake-up pipe");
  }
  wakeRead_ = fds[0];
  wakeWrite_ = fds[1];
}

RevocationListener::~RevocationListener() {
  stop();
  close(wakeRead_);
  close(wakeWrite_);
}

void RevocationListener::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { run(); });
}

void RevocationListener::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  const char byte = 1;
  // A full pipe already wakes the thread: the result does not matter.
  [[maybe_unused]] const ssize_t written = write(wakeWrite_, &byte, 1);
  thread_.join();
  char drain[64];
  while (read(wakeRead_, drain, sizeof drain) > 0) {
  }
}

bool RevocationListener::listening() const {
  std::lock_guard lock(mutex_);
  return listening_;
}

bool RevocationListener::waitUntilListening(std::chrono::milliseconds limit) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, limit, [this] { return listening_; });
}

void RevocationListener::setListening(bool listening) {
  // The token service first: hits are confirmed again before anyone can
  // observe the listener as down, and the cache is cleared before it is up.
  tokens_.setNoticesLive(listening);
  {
    std::lock_guard lock(mutex_);
    listening_ = listening;
  }
  changed_.notify_all();
}

void RevocationListener::run() {
  std::chrono::milliseconds backoff = options_.minBackoff;
  bool failing = false;  // the previous attempt failed too: log quietly
  while (!stopping_) {
    PGconn* conn = connect();
    if (conn != nullptr && listen(conn)) {
      backendPid_ = PQbackendPID(conn);
      ++connections_;
      setListening(true);
      log::info("revocation notices live: cache hits cost no query",
                {{"channel", TokenService::kNoticeChannel}});
      backoff = options_.minBackoff;
      failing = false;
      const Ended ended = serve(conn);
      setListening(false);
      backendPid_ = 0;
      if (ended == Ended::Lost) {
        log::warn(
            "revocation notices lost: cache hits are confirmed in the database until "
            "the listener reconnects",
            {{"error", errorOf(conn)}});
      }
    } else if (!stopping_) {
      const std::string error = errorOf(conn);
      if (!failing) {
        log::warn("revocation listener cannot listen: cache hits are confirmed in the database",
                  {{"error", error}, {"retry_ms", std::to_string(backoff.count())}});
      } else {
        log::debug("revocation listener still cannot listen", {{"error", error}});
      }
      failing = true;
    }
    if (conn != nullptr) PQfinish(conn);
    if (!stopping_ && !pause(backoff)) break;
    backoff = std::min(backoff * 2, options_.maxBackoff);
  }
}

int RevocationListener::waitFor(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    if (stopping_) return -1;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) return 0;
    pollfd fds[2] = {{fd, events, 0}, {wakeRead_, POLLIN, 0}};
    const int ready = poll(fds, 2, static_cast<int>(std::min<std::int64_t>(left.count(), 60000)));
    if (ready < 0 && errno == EINTR) continue;
    if (stopping_ || (fds[1].revents & POLLIN) != 0) return -1;
    if (ready < 0) return 0;
    if (fds[0].revents != 0) return 1;
  }
}

bool RevocationListener::pause(std::chrono::milliseconds duration) {
  const auto deadline = SteadyClock::now() + duration;
  while (!stopping_ && SteadyClock::now() < deadline) {
    pollfd fd{wakeRead_, POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    poll(&fd, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 1)));
  }
  return !stopping_;
}

PGconn* RevocationListener::connect() {
  PGconn* conn = PQconnectStart(conninfo_.c_str());
  if (conn == nullptr || PQstatus(conn) == CONNECTION_BAD) return conn;
  const auto deadline = SteadyClock::now() + options_.connectTimeout;
  // libpq's protocol for a non-blocking connect: wait for what it asks.
  PostgresPollingStatusType status = PGRES_POLLING_WRITING;
  while (status != PGRES_POLLING_OK) {
    if (status == PGRES_POLLING_FAILED) return conn;
    const short events = status == PGRES_POLLING_READING ? POLLIN : POLLOUT;
    if (waitFor(PQsocket(conn), events, deadline) <= 0) {
      PQfinish(conn);
      return nullptr;  // stopping, or the attempt took too long
    }
    status = PQconnectPoll(conn);
  }
  return conn;
}

bool RevocationListener::listen(PGconn* conn) {
  if (PQstatus(conn) != CONNECTION_OK || PQsetnonblocking(conn, 1) != 0) return false;
  const std::string sql = "LISTEN " + std::string(TokenService::kNoticeChannel);
  if (PQsendQuery(conn, sql.c_str()) == 0) return false;
  const auto deadline = SteadyClock::now() + options_.connectTimeout;
  for (;;) {
    const int flushed = PQflush(conn);
    if (flushed < 0) return false;
    if (flushed == 0) break;
    if (waitFor(PQsocket(conn), POLLOUT, deadline) <= 0) return false;
  }
  bool ok = false;
  for (;;) {
    while (PQisBusy(conn) != 0) {
      if (waitFor(PQsocket(conn), POLLIN, deadline) <= 0) return false;
      if (PQconsumeInput(conn) == 0) return false;
    }
    PGresult* result = PQgetResult(conn);
    if (result == nullptr) break;
    ok = PQresultStatus(result) == PGRES_COMMAND_OK;
    PQclear(result);
  }
  return ok;
}

RevocationListener::Ended RevocationListener::serve(PGconn* conn) {
  const std::string channel(TokenService::kNoticeChannel);
  for (;;) {
    // Notices that arrived with the LISTEN answer, or the last read.
    while (PGnotify* notice = PQnotifies(conn)) {
      if (channel == notice->relname && notice->extra != nullptr) {
        tokens_.applyNotice(notice->extra);
      }
      PQfreemem(notice);
    }
    if (PQstatus(conn) != CONNECTION_OK) return Ended::Lost;
    const int ready = waitFor(PQsocket(conn), POLLIN, SteadyClock::now() + std::chrono::hours(1));
    if (ready < 0) return Ended::Stopped;
    if (ready > 0 && PQconsumeInput(conn) == 0) return Ended::Lost;
  }
}

}  // namespace rapport::host::accounts
