// One TLS connection of the HttpsSender (HttpsSender.h), every step bounded
// by a deadline.
//
// The Poco approach: a Poco::Net::SecureStreamSocket on the sender's own
// client Context, with setPeerHostName(URL host) for SNI, connected with
// connectNB() to SocketAddress(checked IP, port) - so the TCP connection goes
// to the address the TargetGuard approved and nothing resolves the name
// again - then driven non-blocking: completeHandshake(), sendBytes() and
// receiveBytes() return ERR_SSL_WANT_READ/WRITE and we poll() the socket for
// what is left of the deadline. A blocking socket with receive time-outs
// bounds each read but not the whole attempt (a TLS record trickled in byte
// by byte would stretch one read far past it), and HTTPSClientSession reads
// headers through its own buffered stream where no deadline can reach, so
// the sender speaks its minimal HTTP/1.1 itself (HttpsSender.cpp).
//
// Certificates: the chain is verified by OpenSSL during the handshake with
// our own verify callback on our own SSL_CTX (so no process-wide Poco
// InvalidCertificateHandler can accept a bad certificate for us); the host
// name is then checked with X509_check_host / X509_check_ip_asc before any
// byte is sent (Poco's own name check is off: it skips names that resolve to
// loopback, and resolves the name again to find out).
#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>

#include <Poco/Net/Context.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/SecureStreamSocket.h>

namespace rapport::webhooks {

using Deadline = std::chrono::steady_clock::time_point;

// Why an attempt failed on the wire; `what()` is the short reason for logs.
struct HttpsFailure : std::runtime_error {
  enum class Kind { kTimedOut, kConnect, kTls, kClosed, kProtocol };
  HttpsFailure(Kind kind, const std::string& reason) : std::runtime_error(reason), kind(kind) {}
  Kind kind;
};

// The sender's client Context: system CAs plus `caFile`, peer verified,
// TLS 1.2 at least, our verify callback (see above).
Poco::Net::Context::Ptr makeClientContext(const std::string& caFile);

class HttpsConnection {
 public:
  // TCP connect to address:port, TLS handshake with `host` as SNI, chain and
  // host name verified. Throws HttpsFailure.
  HttpsConnection(const Poco::Net::Context::Ptr& context, const Poco::Net::IPAddress& address,
                  unsigned short port, const std::string& host, Deadline deadline);
  ~HttpsConnection();
  HttpsConnection(const HttpsConnection&) = delete;
  HttpsConnection& operator=(const HttpsConnection&) = delete;

  void writeAll(const std::string& bytes, Deadline deadline);
  // Some bytes (at least one), or 0 at the end of the stream. Throws HttpsFailure.
  std::size_t readSome(char* buffer, std::size_t size, Deadline deadline);
  // An idle connection fit for another request: nothing arrived on it (a
  // closed or chatty connection is not reused).
  bool idleAndOpen();

 private:
  void wait(int sslWant, Deadline deadline);

  Poco::Net::SecureStreamSocket socket_;
};

}  // namespace rapport::webhooks
