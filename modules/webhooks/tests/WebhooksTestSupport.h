// Test support for unit.webhooks: a throw-away certificate authority made
// with the `openssl` command, a real HTTPS receiver (Poco HTTPServer over a
// SecureServerSocket) with scripted answers that records what it received,
// and running a command for its output.
#pragma once

#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/ThreadPool.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace webhooks_test {

// Files of a temporary folder removed at exit (support/TestCa.h): a CA, a
// server certificate for "localhost" and 127.0.0.1, and one for
// "other.example", both signed by the CA.
struct TestPki {
  std::string dir;
  std::string caFile;
  std::string localhostCert, localhostKey;
  std::string otherCert, otherKey;
};
const TestPki& testPki();

// The hex HMAC-SHA256 of `message` under `key` computed by the
// `openssl dgst -sha256 -hmac KEY` command (an implementation independent of ours).
std::string opensslHmac(const std::string& key, const std::string& message);

struct Received {
  std::string method;
  std::string uri;
  std::vector<std::pair<std::string, std::string>> headers;  // as sent, in order
  std::string body;

  // The value of a header (case-insensitive name); "" when absent.
  std::string header(const std::string& name) const;
  int count(const std::string& name) const;
};

class TestReceiver {
 public:
  // Called for every request after its body was read and recorded; index is
  // the request's 1-based number.
  using Handler = std::function<void(int index, Poco::Net::HTTPServerRequest&,
                                     Poco::Net::HTTPServerResponse&, TestReceiver&)>;

  TestReceiver(const std::string& certFile, const std::string& keyFile, Handler handler);
  ~TestReceiver();
  TestReceiver(const TestReceiver&) = delete;
  TestReceiver& operator=(const TestReceiver&) = delete;

  unsigned short port() const { return port_; }
  std::string url(const std::string& host, const std::string& path = "/hooks/in") const;
  int connections() const;  // TCP connections accepted
  std::vector<Received> received() const;

  // Handlers that wait (a receiver that never answers) wait for release().
  void release();
  bool waitReleased(std::chrono::milliseconds limit);
  bool stopping() const { return released_; }

 private:
  friend class RecordingHandler;

  Handler handler_;
  unsigned short port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable releasedCv_;
  std::atomic<bool> released_{false};
  std::vector<Received> received_;
  std::unique_ptr<Poco::ThreadPool> pool_;
  std::unique_ptr<Poco::Net::HTTPServer> server_;
};

}  // namespace webhooks_test
