// One client connection of the event-driven front end: a state machine that
// lives on one EventLoop's I/O thread and costs a socket and a small buffer
// while it waits for its client, never a thread.
//
//   Waiting --first byte--> Head --head read--> Body --request whole--> Working
//      ^                                                                  |
//      +---- keep-alive <---- (response sent) <---- Writing <-------------+
//   Working: the request runs on a worker (WorkerPool), which also writes
//   as much of the response as the socket takes at once. When all of it
//   went, the connection stays open and nothing waits in its buffer (the
//   usual case), the worker itself starts the wait for the next request;
//   otherwise it hands the connection back to its I/O thread. Closing politely (a request not
//   read to its end, a refusal) goes through Lingering: the send side is
//   shut, what the client still sends is read and dropped for a moment, so
//   that the answer is not destroyed by a reset.
//
// Deadlines (ConnectionLimits) are checked by the loop's sweep, not by a
// timer per connection: onDeadline() decides per phase (a silent close, a
// 408, a close). The head's and the body's are totals (from the accept or
// the head's first byte; from the head's end), not silences: progress
// does not move them, so a client trickling bytes holds a connection no
// longer than one whose bytes stopped.
//
// Threading: everything runs on the loop's I/O thread, except
// serveOnWorker() on a worker. While a worker holds the connection (held())
// the I/O thread touches nothing of it: the sweep, shedding and the stop
// skip it. The worker gives it back either by starting the next read and
// then clearing held(), or with a post to the loop.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>

#include "http/RequestReader.h"

namespace rapport::host {

class EventLoop;
struct ServerContext;

class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  using Clock = std::chrono::steady_clock;
  using Socket = boost::asio::ip::tcp::socket;

  // `address`: the client's; `addressCounted`: counted in
  // ServerContext::addresses (close() forgets it). Counted in the
  // server's open connections by its creator (close() uncounts it).
  ClientConnection(Socket socket, EventLoop& loop, ServerContext& server, std::string address,
                   bool addressCounted);
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  // I/O thread. Starts waiting for the first request; the header time-out
  // runs from now.
  void start();
  // I/O thread, instead of start(). Writes `response` (a front-end
  // refusal) and closes politely.
  void refuse(std::string response);
  // I/O thread, from the loop's sweep when deadline() has passed.
  void onDeadline(Clock::time_point now);
  // I/O thread. Whether closing it now loses no request a worker holds or
  // an answer being written: waiting for a request, receiving a head, or
  // lingering.
  bool sheddable() const;
  // How much of a body arrived in how long, for shedding the slowest.
  struct BodyPace {
    std::size_t bytes = 0;
    Clock::duration elapsed{};
  };
  // I/O thread. While a body arrives, once it has had a second to show its
  // pace (a body just begun has received nothing yet); nullopt otherwise.
  std::optional<BodyPace> bodyPace(Clock::time_point now) const;
  // I/O thread. For shedding and for the server's stop: closes now.
  void close();
  // I/O thread. For the server's stop: closes when no request has begun to
  // arrive. A request arriving, running or being answered finishes (within
  // its deadlines) and its answer says "Connection: close".
  void closeIfWaiting();

  Clock::time_point deadline() const { return deadline_; }
  // Any thread. Whether a worker holds it (then nothing else may be read).
  bool held() const { return holder_.load(std::memory_order_acquire) != 0; }

  // The loop's list position and order (EventLoop only).
  std::list<std::shared_ptr<ClientConnection>>::iterator position;
  bool listed = false;
  Clock::time_point lastActive;

 private:
  enum class Phase { Waiting, Head, Body, Working, Writing, Lingering, Closed };
  // What follows once out_ is sent.
  enum class Then { ReadRequest, ReadBody, Linger, Close };

  void prepare();
  void readSome();
  void onRead(const boost::system::error_code& error, std::size_t bytes);
  void process(bool ended);
  void dispatch();
  void serveOnWorker(RawRequest request, RequestReader::Framing framing, std::uint64_t token);
  void resumeOnWorker(std::uint64_t token);
  bool hold(RawRequest request, RequestReader::Framing framing);
  void answered(std::string bytes, std::size_t sent, bool failed, Then then,
                Clock::time_point writtenAt);
  void send(std::string bytes, std::size_t alreadySent, Then then);
  bool writeNow(const std::string& bytes, std::size_t& sent);
  void writeSome();
  void sent();
  void waitForRequest();
  void linger();
  void onLingerRead(const boost::system::error_code& error, std::size_t bytes);
  void timeOut(ReadState why);
  void beginBody();
  Clock::time_point bodyDeadline() const;
  void setPhase(Phase phase, Clock::duration limit);

  Socket socket_;
  EventLoop& loop_;
  ServerContext& server_;
  // 0: its I/O thread owns it; otherwise the token of the dispatch whose
  // worker holds it (a stale worker's release then changes nothing).
  std::atomic<std::uint64_t> holder_{0};
  std::uint64_t dispatches_ = 0;
  std::string address_;
  bool addressCounted_;
  Phase phase_ = Phase::Waiting;
  Clock::time_point deadline_;
  bool fresh_ = true;  // no request served yet: the header time-out runs from the accept
  // The body being read: when its head ended (its time-out runs from then)
  // and how many bytes came since (about: chunk framing included).
  Clock::time_point bodyStart_;
  std::size_t bodyBytes_ = 0;

  // Received bytes; those before inStart_ belong to requests already taken.
  std::string in_;
  std::size_t inStart_ = 0;
  std::size_t readBase_ = 0;  // in_.size() before the read in flight
  bool clientEnded_ = false;
  RequestReader reader_;

  std::string out_;  // the bytes being written (Writing)
  std::size_t outSent_ = 0;
  Then then_ = Then::ReadRequest;
  std::size_t lingered_ = 0;
  Clock::time_point lingerEnd_;
};

}  // namespace rapport::host
