// One I/O thread: a Boost.Asio io_context (epoll underneath) that reads and
// writes for the connections it owns, and a sweep that applies their
// deadlines four times a second. The loop keeps its connections in a list
// ordered by last activity, least recent first: that order is the one in
// which idle connections are shed when max_connections is reached (then,
// when none is idle, the slowest body: shedOne()), and the sweep walks it.
//
// Threading: start() and stop() from the owning HttpServer; the list
// functions only on this loop's thread (connections call them from their
// handlers); post work to it with boost::asio::post(context(), ...).
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <list>
#include <memory>
#include <thread>

namespace rapport::host {

class ClientConnection;
struct ServerContext;

class EventLoop {
 public:
  explicit EventLoop(ServerContext& server);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  boost::asio::io_context& context() { return context_; }
  ServerContext& server() { return server_; }

  // Runs the loop on a thread of its own.
  void start();
  // Stops the loop and joins its thread. Connections still listed are
  // dropped with it. Not from the loop's own thread.
  void stop();

  // Loop thread only. Lists `connection` as last active at `activeAt`
  // (now, or when a worker wrote its answer: the hand-back may come after
  // other connections' activity), keeping the list in activity order.
  void track(const std::shared_ptr<ClientConnection>& connection,
             std::chrono::steady_clock::time_point activeAt);
  // Loop thread only. Active now: moves it to the most recently active end.
  void touch(ClientConnection& connection);
  // Loop thread only. Unlists it (handed to a worker, or closed).
  void untrack(ClientConnection& connection);
  // Loop thread only. Makes room for a new connection: closes the least
  // recently active connection waiting for its client (idle, or receiving
  // a head) or, when there is none, the one receiving a body at the lowest
  // pace (ClientConnection::bodyPace); counts it (ConnectionStats::shed,
  // shedSlowBodies). False when there is nothing to close.
  bool shedOne();
  // Loop thread only. For the server's stop: closes every connection that
  // waits for a request (ClientConnection::closeIfWaiting).
  void closeIdle();

 private:
  bool shedSlowestBody();
  void scheduleSweep();
  void sweep();

  ServerContext& server_;
  boost::asio::io_context context_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::steady_timer sweepTimer_;
  // Least recently active first, held ones (ClientConnection::held) included and
  // skipped.
  std::list<std::shared_ptr<ClientConnection>> connections_;
  std::thread thread_;
};

}  // namespace rapport::host
