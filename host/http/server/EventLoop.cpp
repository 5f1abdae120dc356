#include "http/server/EventLoop.h"

#include <chrono>
#include <iterator>

#include "http/server/ClientConnection.h"
#include "http/server/ServerContext.h"

namespace rapport::host {
namespace {

// Deadlines are applied this often: a time-out fires up to this late.
constexpr auto kSweepInterval = std::chrono::milliseconds(250);

}  // namespace

// Concurrency hint 1: one thread runs the context (others only post to it).
EventLoop::EventLoop(ServerContext& server)
    : server_(server),
      context_(1),
      work_(boost::asio::make_work_guard(context_)),
      sweepTimer_(context_) {}

EventLoop::~EventLoop() {
  stop();
}

void EventLoop::start() {
  scheduleSweep();
  thread_ = std::thread([this] { context_.run(); });
}

void EventLoop::stop() {
  if (!thread_.joinable()) return;
  context_.stop();
  thread_.join();
  connections_.clear();
}

void EventLoop::track(const std::shared_ptr<ClientConnection>& connection,
                      std::chrono::steady_clock::time_point activeAt) {
  connection->lastActive = activeAt;
  // From the most recent end: a connection is rarely older than more than
  // a few that became active since.
  auto before = connections_.end();
  while (before != connections_.begin() && std::prev(before)->get()->lastActive > activeAt) {
    --before;
  }
  connection->position = connections_.insert(before, connection);
  connection->listed = true;
}

void EventLoop::touch(ClientConnection& connection) {
  connection.lastActive = std::chrono::steady_clock::now();
  if (!connection.listed) return;
  connections_.splice(connections_.end(), connections_, connection.position);
}

void EventLoop::untrack(ClientConnection& connection) {
  if (!connection.listed) return;
  connection.listed = false;
  // Last: the list may hold the only reference.
  const auto keep = *connection.position;
  connections_.erase(connection.position);
}

bool EventLoop::shedOne() {
  for (const auto& listed : connections_) {
    if (!listed->held() && listed->sheddable()) {
      const std::shared_ptr<ClientConnection> connection = listed;  // close() unlists it
      connection->close();
      ++server_.stats.shed;
      return true;
    }
  }
  return shedSlowestBody();
}

// Nothing idle to close: the body arriving at the lowest average pace goes
// (equal paces: the one arriving for longest). A slowloris trickling bodies
// over many connections is paced far below any real upload, so its
// connections go first, and each one costs it a new connection and head.
bool EventLoop::shedSlowestBody() {
  const auto now = ClientConnection::Clock::now();
  std::shared_ptr<ClientConnection> slowest;
  double slowestRate = 0;
  ClientConnection::Clock::duration slowestElapsed{};
  for (const auto& listed : connections_) {
    if (listed->held()) continue;
    const auto pace = listed->bodyPace(now);
    if (!pace) continue;
    const double rate =
        static_cast<double>(pace->bytes) / std::chrono::duration<double>(pace->elapsed).count();
    if (!slowest || rate < slowestRate || (rate == slowestRate && pace->elapsed > slowestElapsed)) {
      slowest = listed;
      slowestRate = rate;
      slowestElapsed = pace->elapsed;
    }
  }
  if (!slowest) return false;
  slowest->close();
  ++server_.stats.shedSlowBodies;
  return true;
}

void EventLoop::closeIdle() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    // close() unlists the connection: step first.
    const std::shared_ptr<ClientConnection> connection = *it++;
    if (!connection->held()) connection->closeIfWaiting();
  }
}

void EventLoop::scheduleSweep() {
  sweepTimer_.expires_after(kSweepInterval);
  sweepTimer_.async_wait([this](const boost::system::error_code& error) {
    if (error) return;
    sweep();
    scheduleSweep();
  });
}

void EventLoop::sweep() {
  const auto now = ClientConnection::Clock::now();
  for (auto it = connections_.begin(); it != connections_.end();) {
    // onDeadline may unlist the connection (close, or a 408 handed to a
    // worker): step first. It touches no other connection.
    const auto current = it++;
    const std::shared_ptr<ClientConnection> connection = *current;
    if (!connection->held() && connection->deadline() <= now) connection->onDeadline(now);
  }
}

}  // namespace rapport::host
