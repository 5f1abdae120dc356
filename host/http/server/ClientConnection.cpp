#include "http/server/ClientConnection.h"

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>

#include <utility>

#include "http/ResponseWriter.h"
#include "http/server/EventLoop.h"
#include "http/server/Refusal.h"
#include "http/server/ServerContext.h"

namespace rapport::host {
namespace {

// Read sizes: small while a head arrives (an idle connection holds only
// this), larger for bodies.
constexpr std::size_t kHeadReadSize = 4 * 1024;
constexpr std::size_t kBodyReadSize = 64 * 1024;
// Buffers grown past this by a large request are released between requests.
constexpr std::size_t kKeptCapacity = 64 * 1024;
// Lingering close: how long, and how much, a client's leftover bytes are
// read and dropped before the socket closes.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr std::size_t kLingerBytes = 64 * 1024 * 1024;
constexpr std::size_t kLingerReadSize = 16 * 1024;
// A body is judged by its pace (shedding the slowest under pressure) only
// once it has arrived for this long.
constexpr auto kBodyJudgedAfter = std::chrono::seconds(1);

bool wouldBlock(const boost::system::error_code& error) {
  return error == boost::asio::error::would_block || error == boost::asio::error::try_again;
}

// Keeps memory per idle connection small after a large request.
void release(std::string& buffer) {
  buffer.clear();
  if (buffer.capacity() > kKeptCapacity) std::string().swap(buffer);
}

}  // namespace

ClientConnection::ClientConnection(Socket socket, EventLoop& loop, ServerContext& server,
                                   std::string address, bool addressCounted)
    : socket_(std::move(socket)),
      loop_(loop),
      server_(server),
      address_(std::move(address)),
      addressCounted_(addressCounted),
      reader_(server.limits.maxBodyBytes) {}

void ClientConnection::prepare() {
  boost::system::error_code ignored;
  // Answers are written whole, at once: Nagle would only delay them.
  socket_.set_option(boost::asio::ip::tcp::no_delay(true), ignored);
  // Workers write without blocking (a full socket buffer hands the rest to
  // the I/O thread).
  socket_.non_blocking(true, ignored);
  loop_.track(shared_from_this(), Clock::now());
}

void ClientConnection::start() {
  prepare();
  setPhase(Phase::Waiting, server_.limits.header);
  readSome();
}

void ClientConnection::refuse(std::string response) {
  prepare();
  send(std::move(response), 0, Then::Linger);
}

void ClientConnection::setPhase(Phase phase, Clock::duration limit) {
  phase_ = phase;
  deadline_ = Clock::now() + limit;
}

bool ClientConnection::sheddable() const {
  return phase_ == Phase::Waiting || phase_ == Phase::Head || phase_ == Phase::Lingering;
}

std::optional<ClientConnection::BodyPace> ClientConnection::bodyPace(Clock::time_point now) const {
  if (phase_ != Phase::Body || now - bodyStart_ < kBodyJudgedAfter) return std::nullopt;
  return BodyPace{bodyBytes_, now - bodyStart_};
}

// The head is whole: the body's one deadline runs from now, whatever
// arrives meanwhile (a client sending a byte now and then must not hold
// the connection for ever). Bytes that came with the head count as its
// first progress.
void ClientConnection::beginBody() {
  phase_ = Phase::Body;
  bodyStart_ = Clock::now();
  bodyBytes_ = in_.size() - inStart_;
  deadline_ = bodyDeadline();
}

ClientConnection::Clock::time_point ClientConnection::bodyDeadline() const {
  return bodyStart_ + server_.limits.body;
}

// ---- Reading a request (I/O thread) ----

void ClientConnection::readSome() {
  if (inStart_ == in_.size()) {
    in_.clear();
    inStart_ = 0;
  } else if (inStart_ > 0 && inStart_ >= in_.size() / 2) {
    // Bytes before inStart_ belong to answered requests (or decoded chunks).
    in_.erase(0, inStart_);
    inStart_ = 0;
  }
  const std::size_t size = reader_.readingBody() ? kBodyReadSize : kHeadReadSize;
  readBase_ = in_.size();
  in_.resize(readBase_ + size);
  socket_.async_read_some(
      boost::asio::buffer(in_.data() + readBase_, size),
      [self = shared_from_this()](const boost::system::error_code& error, std::size_t bytes) {
        self->onRead(error, bytes);
      });
}

void ClientConnection::onRead(const boost::system::error_code& error, std::size_t bytes) {
  // Closed, shed or timed out while the read was in flight: in_ is no
  // longer this read's.
  if (phase_ != Phase::Waiting && phase_ != Phase::Head && phase_ != Phase::Body) return;
  in_.resize(readBase_ + bytes);
  if (error == boost::asio::error::eof) {
    clientEnded_ = true;
  } else if (error) {
    close();  // a reset: nobody is left to answer
    return;
  }
  if (bytes > 0) loop_.touch(*this);
  if (phase_ == Phase::Body) bodyBytes_ += bytes;
  process(clientEnded_);
}

void ClientConnection::process(bool ended) {
  const RequestReader::Step step = reader_.advance(in_, inStart_, ended);
  // The interim answer only while the body is still awaited.
  const bool interim = reader_.takeContinue() && step == RequestReader::Step::NeedMore;
  switch (step) {
    case RequestReader::Step::Nothing:
      close();  // the client is done
      return;
    case RequestReader::Step::Ready:
      dispatch();
      return;
    case RequestReader::Step::NeedMore:
      break;
  }
  if (reader_.readingBody()) {
    if (phase_ != Phase::Body) beginBody();
  } else if (reader_.started() && phase_ == Phase::Waiting) {
    // The head's clock: from the accept for a first request, from its
    // first byte for later ones.
    phase_ = Phase::Head;
    if (!fresh_) deadline_ = Clock::now() + server_.limits.header;
  }
  if (interim) {
    send(kContinueResponse, 0, Then::ReadBody);
    return;
  }
  readSome();
}

// ---- Answering (worker, then I/O thread) ----

void ClientConnection::dispatch() {
  RequestReader::Framing framing;
  RawRequest request = reader_.take(framing);
  // The one place the client's address is decided: behind a trusted proxy,
  // from X-Forwarded-For (TrustedProxies.h); the per-address connection
  // count stays with the peer.
  request.clientAddress = server_.trustedProxies.clientAddress(address_, request.headers);
  if (hold(std::move(request), framing)) return;
  ++server_.stats.refusedBusy;
  send(serviceUnavailable("The server is too busy to take this request. Try again shortly."), 0,
       Then::Linger);
}

// Hands the connection and `request` to a worker. False when the queue is
// full: the connection stays with its I/O thread (phase unchanged). When
// true, the connection is the worker's: the caller must not touch it again.
bool ClientConnection::hold(RawRequest request, RequestReader::Framing framing) {
  const std::uint64_t token = ++dispatches_;
  holder_.store(token, std::memory_order_release);
  const Phase before = phase_;
  phase_ = Phase::Working;
  const bool queued = server_.workers.submit(
      [self = shared_from_this(), request = std::move(request), framing, token]() mutable {
        self->serveOnWorker(std::move(request), framing, token);
      });
  if (queued) return true;
  phase_ = before;
  holder_.store(0, std::memory_order_release);
  return false;
}

void ClientConnection::serveOnWorker(RawRequest request, RequestReader::Framing framing,
                                     std::uint64_t token) {
  const RawResponse response = server_.pipeline.handle(request);
  // Asked once the handler has run: a server that began stopping meanwhile
  // answers "Connection: close".
  const bool keepAlive = framing.clientKeepsAlive && framing.consumed &&
                         server_.limits.keepAlive.count() > 0 &&
                         !server_.stopping.load(std::memory_order_relaxed);
  std::string bytes = serializeResponse(response, keepAlive, framing.headRequest);
  // Most answers fit the socket's buffer: written here, the client has them
  // without waiting for the I/O thread.
  std::size_t sent = 0;
  // Its last activity for shedding: taken before the write, since the
  // client may act on the answer (open another connection) before this
  // thread runs again.
  const Clock::time_point writtenAt = Clock::now();
  const bool failed = !writeNow(bytes, sent);
  if (keepAlive && !failed && sent == bytes.size() && inStart_ == in_.size() && !clientEnded_) {
    resumeOnWorker(token);
    return;
  }
  // Not keeping the connection: the client may still be sending (a body
  // not read, pipelined requests), so close politely.
  const Then then = keepAlive ? Then::ReadRequest : Then::Linger;
  boost::asio::post(loop_.context(), [self = shared_from_this(), bytes = std::move(bytes), sent,
                                      failed, then, writtenAt]() mutable {
    self->answered(std::move(bytes), sent, failed, then, writtenAt);
  });
}

// The answer went out whole and the connection waits for the next request:
// the worker starts that wait itself, sparing the I/O thread a wake-up per
// request. The read, once started, may complete on the I/O thread at once:
// it is this worker's last touch of the connection but for releasing it.
void ClientConnection::resumeOnWorker(std::uint64_t token) {
  const auto self = shared_from_this();
  fresh_ = false;
  phase_ = Phase::Waiting;
  deadline_ = Clock::now() + server_.limits.keepAlive;
  readSome();
  holder_.compare_exchange_strong(token, 0, std::memory_order_acq_rel);
  // A stop that began meanwhile may have passed this connection by.
  if (server_.stopping.load(std::memory_order_acquire)) {
    boost::asio::post(loop_.context(), [self] { self->closeIfWaiting(); });
  }
}

void ClientConnection::answered(std::string bytes, std::size_t sent, bool failed, Then then,
                                Clock::time_point writtenAt) {
  holder_.store(0, std::memory_order_release);
  if (phase_ == Phase::Closed) return;
  // Placed in the activity order by when its answer was written.
  loop_.untrack(*this);
  loop_.track(shared_from_this(), writtenAt);
  if (failed) {
    close();  // the client is gone
    return;
  }
  send(std::move(bytes), sent, then);
}

// ---- Writing (I/O thread) ----

// Writes what the socket takes now of `bytes` from `sent` on, advancing
// `sent`; false when the client is gone (a full socket buffer is not a
// failure). Worker or I/O thread: whichever holds the connection.
bool ClientConnection::writeNow(const std::string& bytes, std::size_t& sent) {
  while (sent < bytes.size()) {
    boost::system::error_code error;
    sent +=
        socket_.write_some(boost::asio::buffer(bytes.data() + sent, bytes.size() - sent), error);
    if (error) return wouldBlock(error);
  }
  return true;
}

void ClientConnection::send(std::string bytes, std::size_t alreadySent, Then then) {
  out_ = std::move(bytes);
  outSent_ = alreadySent;
  then_ = then;
  if (!writeNow(out_, outSent_)) {
    close();
    return;
  }
  if (outSent_ < out_.size()) {
    setPhase(Phase::Writing, server_.limits.send);
    writeSome();
    return;
  }
  sent();
}

void ClientConnection::writeSome() {
  socket_.async_write_some(
      boost::asio::buffer(out_.data() + outSent_, out_.size() - outSent_),
      [self = shared_from_this()](const boost::system::error_code& error, std::size_t bytes) {
        if (self->phase_ != Phase::Writing) return;
        if (error) {
          self->close();
          return;
        }
        self->outSent_ += bytes;
        // The send deadline is the longest wait for progress, not for all.
        self->setPhase(Phase::Writing, self->server_.limits.send);
        self->loop_.touch(*self);
        if (self->outSent_ < self->out_.size()) {
          self->writeSome();
        } else {
          self->sent();
        }
      });
}

void ClientConnection::sent() {
  release(out_);
  outSent_ = 0;
  switch (then_) {
    case Then::ReadBody:
      // The body's clock kept running while the interim answer went out.
      phase_ = Phase::Body;
      deadline_ = bodyDeadline();
      readSome();
      return;
    case Then::ReadRequest:
      waitForRequest();
      return;
    case Then::Linger:
      linger();
      return;
    case Then::Close:
      close();
      return;
  }
}

void ClientConnection::waitForRequest() {
  if (server_.stopping.load(std::memory_order_relaxed)) {
    linger();
    return;
  }
  fresh_ = false;
  setPhase(Phase::Waiting, server_.limits.keepAlive);
  // Pipelined requests are already here.
  if (inStart_ < in_.size() || clientEnded_) {
    process(clientEnded_);
    return;
  }
  release(in_);
  inStart_ = 0;
  readSome();
}

// ---- Closing (I/O thread) ----

// Shut the send side, then read and drop what the client still sends until
// it closes, for a moment: closing a socket with unread bytes sends a reset
// that can destroy the answer before the client reads it.
void ClientConnection::linger() {
  phase_ = Phase::Lingering;
  deadline_ = Clock::now() + kLingerTime;
  boost::system::error_code ignored;
  socket_.shutdown(Socket::shutdown_send, ignored);
  if (clientEnded_) {
    close();
    return;
  }
  in_.clear();
  inStart_ = 0;
  in_.resize(kLingerReadSize);
  socket_.async_read_some(
      boost::asio::buffer(in_),
      [self = shared_from_this()](const boost::system::error_code& error, std::size_t bytes) {
        self->onLingerRead(error, bytes);
      });
}

void ClientConnection::onLingerRead(const boost::system::error_code& error, std::size_t bytes) {
  if (phase_ != Phase::Lingering) return;
  lingered_ += bytes;
  if (error || bytes == 0 || lingered_ > kLingerBytes) {
    close();
    return;
  }
  socket_.async_read_some(boost::asio::buffer(in_),
                          [self = shared_from_this()](const boost::system::error_code& e,
                                                      std::size_t n) { self->onLingerRead(e, n); });
}

void ClientConnection::onDeadline(Clock::time_point) {
  switch (phase_) {
    case Phase::Waiting:
      ++server_.stats.idleClosed;
      close();
      return;
    case Phase::Head:
      ++server_.stats.headerTimeouts;
      timeOut(ReadState::TimedOut);
      return;
    case Phase::Body:
      ++server_.stats.bodyTimeouts;
      timeOut(ReadState::TimedOut);
      return;
    case Phase::Writing:
      ++server_.stats.sendTimeouts;
      close();
      return;
    case Phase::Lingering:
      close();
      return;
    case Phase::Working:
    case Phase::Closed:
      return;
  }
}

// A request that stopped arriving is answered (408, through the Pipeline:
// envelope, request id, rate-limit headers) and the connection closed.
void ClientConnection::timeOut(ReadState why) {
  const auto self = shared_from_this();
  boost::system::error_code ignored;
  socket_.cancel(ignored);  // the read in flight ends; its handler sees Working and leaves
  RawRequest request;
  request.clientAddress = address_;
  request.readState = why;
  if (!hold(std::move(request), RequestReader::Framing{false, false, false})) close();
}

void ClientConnection::closeIfWaiting() {
  if (phase_ == Phase::Waiting || phase_ == Phase::Lingering) close();
}

void ClientConnection::close() {
  if (phase_ == Phase::Closed) return;
  const auto self = shared_from_this();  // untrack may drop the list's reference
  phase_ = Phase::Closed;
  boost::system::error_code ignored;
  socket_.close(ignored);
  loop_.untrack(*this);
  --server_.stats.open;
  if (addressCounted_) server_.addresses.remove(address_);
}

}  // namespace rapport::host
