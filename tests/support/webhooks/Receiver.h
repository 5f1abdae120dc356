// The webhook receiver of the end-to-end suites (e2e.webhooks, e2e.products):
// a real HTTPS server in the test process (Poco HTTPServer over a
// SecureServerSocket, its own server Context with the TestCa certificate for
// "localhost"), on 127.0.0.1 and a port the kernel picks.
//
// It records every request (method, path, every header, the raw body bytes)
// and answers from a script per path: a queue of answers used in order, the
// last one repeating (default: 200 "ok"). Answers:
//   Answer::status(500, "body")  a status with a body
//   Answer::hang()               holds the request until releaseHangs(),
//                                stop() or the receiver's end (the server
//                                times out)
//   Answer::redirect(url)        301 with Location
//   Answer::endless(status)      a chunked body written until the peer closes
//   .with(name, value)           an extra header on a status answer
//                                (Retry-After, ...)
// stop() takes the receiver down (connection refused); start() brings it
// back on the same port.
//
// The waits block on a condition variable until their condition holds or the
// deadline passes (no sleeps).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rapport::test::webhooks {

struct ReceivedRequest {
  std::string method;
  std::string uri;                                           // as sent: path and query
  std::string path;                                          // without the query
  std::vector<std::pair<std::string, std::string>> headers;  // in order, names as sent
  std::string body;                                          // the raw bytes
  std::chrono::steady_clock::time_point receivedAt;          // when the body was read

  // The first value of header `name` (case-insensitive); "" when absent.
  std::string header(const std::string& name) const;
  // How many times header `name` appears.
  std::size_t headerCount(const std::string& name) const;
};

struct Answer {
  enum class Kind { Status, Hang, Redirect, Endless };
  Kind kind = Kind::Status;
  int code = 200;
  std::string body = "ok";
  std::string location;
  std::vector<std::pair<std::string, std::string>> headers;  // extra, on Status answers

  static Answer status(int code, std::string body = "");
  // This answer with one more header.
  Answer with(std::string name, std::string value) const;
  static Answer hang();
  static Answer redirect(std::string location);
  static Answer endless(int code = 200);
};

class Receiver {
 public:
  // Starts listening at once.
  Receiver();
  ~Receiver();
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;

  int port() const { return port_; }
  // https://localhost:<port><path>: the certificate's name.
  std::string url(const std::string& path) const;

  // The answers for `path`, in order; the last one repeats.
  void script(const std::string& path, std::vector<Answer> answers);

  // Down: stops listening (new connections are refused) and drops open
  // connections; hanging requests end. start() listens again on the same port.
  void stop();
  void start();
  bool listening() const;

  // Ends every request held by Answer::hang() so far.
  void releaseHangs();

  // Requests received so far (on `path`, or on every path when empty).
  std::vector<ReceivedRequest> requests(const std::string& path = "") const;
  std::size_t count(const std::string& path = "") const;
  // Waits until at least `n` requests were received (on `path`); returns
  // whether they were.
  bool waitForRequests(std::size_t n, std::chrono::milliseconds timeout,
                       const std::string& path = "") const;

  // Endless answers: how many ended (the peer closed or the receiver
  // stopped), and the bytes each wrote, in the order they ended.
  bool waitForEndlessDone(std::size_t n, std::chrono::milliseconds timeout) const;
  std::vector<std::uint64_t> endlessBytes() const;

  struct State;

 private:
  void listen();

  std::shared_ptr<State> state_;
  struct Server;
  std::unique_ptr<Server> server_;
  int port_ = 0;
};

}  // namespace rapport::test::webhooks
