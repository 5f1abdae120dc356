// One client connection driven byte by byte over a POSIX socket, with every
// wait bounded by poll(): what the connection tests need and HttpClient hides
// (a head left unfinished, a connection that sends nothing, the moment the
// server closes, whether it said anything before).
//
//   RawConnection connection(server.port());
//   connection.send("GET /v1/versions HTTP/1.1\r\nHost: x\r\n\r\n");
//   HttpResult answer = connection.readResponse(std::chrono::seconds(5));
//   RawConnection::Ending end = connection.waitForClose(std::chrono::seconds(5));
//
// Failures (no connection, no answer in time, a malformed answer) are CppUnit
// failures that say what arrived.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "support/HttpClient.h"

namespace rapport::e2e {

class RawConnection {
 public:
  using Clock = std::chrono::steady_clock;

  // Connects to 127.0.0.1:`port`, from `sourceAddress` when given (another
  // 127.x address: the server sees another client), failing the test when
  // the connection is not established within `limit`.
  explicit RawConnection(int port, const std::string& sourceAddress = "",
                         std::chrono::milliseconds limit = std::chrono::seconds(5));
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // Sends every byte (fails the test when the server closed first).
  void send(std::string_view bytes);
  // Sends every byte; false when the server has closed or reset the
  // connection meanwhile.
  bool trySend(std::string_view bytes);

  // Reads one response: status line, headers, and a body of Content-Length
  // bytes. Fails the test when it is not complete within `limit`.
  rapport::test::HttpResult readResponse(std::chrono::milliseconds limit);

  // How a connection ended, or did not.
  struct Ending {
    enum class Kind { Closed, Reset, StillOpen } kind = Kind::StillOpen;
    std::string bytes;     // whatever arrived before the end (or the limit)
    Clock::time_point at;  // when the end was seen (or the limit passed)
  };
  // Reads until the server closes (EOF), resets, or `limit` passes.
  Ending waitForClose(std::chrono::milliseconds limit);

  // Without waiting: nothing arrived and the server has not closed.
  enum class Peek { Open, Closed, Data };
  Peek peek();
  // Whether bytes (or the end) arrive within `limit`.
  bool readable(std::chrono::milliseconds limit);

  // Closes our side now (the server sees EOF).
  void close();

 private:
  // Reads what is there into pending_; 0 at EOF, -1 on reset or error.
  long receive();

  int fd_ = -1;
  std::string pending_;  // received, not yet consumed by readResponse
};

// "Kind Closed, 0 bytes" and the like, for failure messages.
std::string describe(const RawConnection::Ending& ending);

}  // namespace rapport::e2e
