#include "e2e/connections/RawConnection.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cppunit/extensions/HelperMacros.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rapport::e2e {

using rapport::test::HttpResult;

namespace {

using Clock = RawConnection::Clock;

sockaddr_in loopback(const std::string& address, int port) {
  sockaddr_in out{};
  out.sin_family = AF_INET;
  out.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::inet_pton(AF_INET, address.c_str(), &out.sin_addr) != 1)
    throw std::invalid_argument("not an IPv4 address: " + address);
  return out;
}

// Milliseconds left until `deadline` (0 once passed), for poll().
int millisecondsUntil(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// Waits for `events` on `fd` until `deadline`; the events seen (0: none).
short waitFor(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd entry{fd, events, 0};
    const int n = ::poll(&entry, 1, millisecondsUntil(deadline));
    if (n > 0) return entry.revents;
    if (n == 0) return 0;
    if (errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  }
}

std::string systemError(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// The head of `text` up to its blank line, parsed into `result` (status,
// reason, headers). False when the head is malformed.
bool parseHead(const std::string& head, HttpResult& result) {
  std::size_t lineEnd = head.find("\r\n");
  const std::string statusLine = head.substr(0, lineEnd);
  // "HTTP/1.1 200 OK"
  if (statusLine.rfind("HTTP/1.", 0) != 0 || statusLine.size() < 12) return false;
  try {
    result.status = std::stoi(statusLine.substr(9, 3));
  } catch (const std::exception&) {
    return false;
  }
  result.reason = statusLine.size() > 13 ? statusLine.substr(13) : "";
  while (lineEnd != std::string::npos && lineEnd + 2 < head.size()) {
    const std::size_t start = lineEnd + 2;
    lineEnd = head.find("\r\n", start);
    const std::string line = head.substr(start, lineEnd - start);
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) return false;
    std::size_t valueStart = line.find_first_not_of(" \t", colon + 1);
    result.headers[line.substr(0, colon)] =
        valueStart == std::string::npos ? "" : line.substr(valueStart);
  }
  return true;
}

}  // namespace

RawConnection::RawConnection(int port, const std::string& sourceAddress,
                             std::chrono::milliseconds limit) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) CPPUNIT_FAIL(systemError("socket"));
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (!sourceAddress.empty()) {
    const sockaddr_in source = loopback(sourceAddress, 0);
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&source), sizeof source) != 0)
      CPPUNIT_FAIL(systemError("bind to " + sourceAddress));
  }
  const sockaddr_in server = loopback("127.0.0.1", port);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&server), sizeof server) != 0 &&
      errno != EINPROGRESS)
    CPPUNIT_FAIL(systemError("connect to port " + std::to_string(port)));
  // A full accept queue leaves the handshake unanswered: bounded here, so a
  // server that does not accept fails the test instead of hanging it.
  if (waitFor(fd_, POLLOUT, Clock::now() + limit) == 0)
    CPPUNIT_FAIL("not connected to port " + std::to_string(port) + " within " +
                 std::to_string(limit.count()) + " ms");
  int error = 0;
  socklen_t size = sizeof error;
  ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &size);
  if (error != 0)
    CPPUNIT_FAIL("connect to port " + std::to_string(port) + ": " + std::strerror(error));
}

RawConnection::~RawConnection() {
  close();
}

void RawConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConnection::trySend(std::string_view bytes) {
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (waitFor(fd_, POLLOUT, deadline) == 0) return false;
    } else {
      return false;
    }
  }
  return true;
}

void RawConnection::send(std::string_view bytes) {
  if (!trySend(bytes)) CPPUNIT_FAIL("the server closed the connection while we were sending");
}

long RawConnection::receive() {
  char buffer[16384];
  while (true) {
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n > 0) pending_.append(buffer, static_cast<std::size_t>(n));
    if (n >= 0) return static_cast<long>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return -2;  // nothing there after all
    return -1;
  }
}

HttpResult RawConnection::readResponse(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  HttpResult result;
  std::size_t headEnd = std::string::npos;
  std::size_t total = 0;
  bool parsed = false;
  while (true) {
    if (!parsed && (headEnd = pending_.find("\r\n\r\n")) != std::string::npos) {
      if (!parseHead(pending_.substr(0, headEnd), result))
        CPPUNIT_FAIL("not an HTTP response:\n" + pending_);
      const std::string length = result.header("Content-Length");
      total = headEnd + 4 + (length.empty() ? 0 : std::stoul(length));
      parsed = true;
    }
    if (parsed && pending_.size() >= total) {
      result.body = pending_.substr(headEnd + 4, total - headEnd - 4);
      pending_.erase(0, total);
      return result;
    }
    if (waitFor(fd_, POLLIN, deadline) == 0)
      CPPUNIT_FAIL("no complete response within " + std::to_string(limit.count()) +
                   " ms; received:\n" + pending_);
    const long n = receive();
    if (n == 0 || n == -1)
      CPPUNIT_FAIL(std::string(n == 0 ? "EOF" : "connection reset") +
                   " before a complete response; received:\n" + pending_);
  }
}

RawConnection::Ending RawConnection::waitForClose(std::chrono::milliseconds limit) {
  const auto deadline = Clock::now() + limit;
  Ending ending;
  while (true) {
    if (waitFor(fd_, POLLIN, deadline) == 0) {
      ending.kind = Ending::Kind::StillOpen;
      break;
    }
    const long n = receive();
    if (n == 0 || n == -1) {
      ending.kind = n == 0 ? Ending::Kind::Closed : Ending::Kind::Reset;
      break;
    }
  }
  ending.at = Clock::now();
  ending.bytes = std::move(pending_);
  pending_.clear();
  return ending;
}

RawConnection::Peek RawConnection::peek() {
  if (!pending_.empty()) return Peek::Data;
  const short events = waitFor(fd_, POLLIN, Clock::now());
  if (events == 0) return Peek::Open;
  char byte = 0;
  const ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK);
  if (n > 0) return Peek::Data;
  if (n < 0 && errno == EAGAIN) return Peek::Open;
  return Peek::Closed;
}

bool RawConnection::readable(std::chrono::milliseconds limit) {
  return !pending_.empty() || waitFor(fd_, POLLIN, Clock::now() + limit) != 0;
}

std::string describe(const RawConnection::Ending& ending) {
  using Kind = RawConnection::Ending::Kind;
  const char* kind = ending.kind == Kind::Closed  ? "closed (EOF)"
                     : ending.kind == Kind::Reset ? "reset"
                                                  : "still open";
  return std::string(kind) + " after " + std::to_string(ending.bytes.size()) + " bytes:\n" +
         ending.bytes;
}

}  // namespace rapport::e2e
