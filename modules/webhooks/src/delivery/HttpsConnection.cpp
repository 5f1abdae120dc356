// One deadline-bounded TLS connection over Poco NetSSL (HttpsConnection.h).
#include "delivery/HttpsConnection.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/X509Certificate.h>
#include <Poco/Timespan.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

namespace rapport::webhooks {

namespace {

// The first chain error of the handshake running on this thread (the
// handshake runs in the caller's thread, inside completeHandshake()).
thread_local int handshakeVerifyError = X509_V_OK;

// Our verify callback: OpenSSL's verdict stands (a failed chain fails the
// handshake); we only remember why, for the log.
int verifyCallback(int preverifyOk, X509_STORE_CTX* store) {
  if (preverifyOk == 0 && handshakeVerifyError == X509_V_OK)
    handshakeVerifyError = X509_STORE_CTX_get_error(store);
  return preverifyOk;
}

HttpsFailure timedOut() {
  return HttpsFailure(HttpsFailure::Kind::kTimedOut, "timed out");
}

// "error:0A000086:SSL routines::certificate verify failed" -> the last part.
std::string sslReason(const Poco::Exception& e) {
  std::string text = e.message().empty() ? e.displayText() : e.message();
  const auto colon = text.rfind(':');
  if (text.rfind("error:", 0) == 0 && colon != std::string::npos) text = text.substr(colon + 1);
  return text;
}

HttpsFailure tlsFailure(const Poco::Exception& e) {
  if (handshakeVerifyError != X509_V_OK)
    return HttpsFailure(HttpsFailure::Kind::kTls,
                        std::string("TLS: certificate verify failed: ") +
                            X509_verify_cert_error_string(handshakeVerifyError));
  return HttpsFailure(HttpsFailure::Kind::kTls, "TLS: " + sslReason(e));
}

std::string connectReason(int error) {
  if (error == ECONNREFUSED) return "connection refused";
  if (error == ETIMEDOUT) return "timed out";
  return std::string("connection failed: ") + std::strerror(error);
}

}  // namespace

Poco::Net::Context::Ptr makeClientContext(const std::string& caFile) {
  Poco::Net::Context::Params params;
  params.verificationMode = Poco::Net::Context::VERIFY_RELAXED;
  params.loadDefaultCAs = true;
  params.caLocation = caFile;
  params.cipherList = "DEFAULT";
  Poco::Net::Context::Ptr context = new Poco::Net::Context(Poco::Net::Context::CLIENT_USE, params);
  context->requireMinimumProtocol(Poco::Net::Context::PROTO_TLSV1_2);
  // The host name is checked by HttpsConnection itself (see the header).
  context->enableExtendedCertificateVerification(false);
  SSL_CTX* ssl = context->sslContext();
  SSL_CTX_set_verify(ssl, SSL_VERIFY_PEER, &verifyCallback);
  // A peer closing without close_notify ends the stream (bodies delimited by
  // the end of the connection); Content-Length and chunked bodies are
  // checked for completeness by the sender.
  SSL_CTX_set_options(ssl, SSL_OP_IGNORE_UNEXPECTED_EOF);
  return context;
}

HttpsConnection::HttpsConnection(const Poco::Net::Context::Ptr& context,
                                 const Poco::Net::IPAddress& address, unsigned short port,
                                 const std::string& host, Deadline deadline)
    : socket_(context) {
  Poco::Net::IPAddress literal;
  const bool hostIsAddress = Poco::Net::IPAddress::tryParse(host, literal);
  if (!hostIsAddress) socket_.setPeerHostName(host);  // SNI (never an address, RFC 6066)

  try {
    ERR_clear_error();
    socket_.connectNB(Poco::Net::SocketAddress(address, port));
  } catch (const Poco::Net::ConnectionRefusedException&) {
    throw HttpsFailure(HttpsFailure::Kind::kConnect, "connection refused");
  } catch (const Poco::Exception& e) {
    throw HttpsFailure(HttpsFailure::Kind::kConnect, "connection failed: " + e.displayText());
  }
  wait(Poco::Net::SecureStreamSocket::ERR_SSL_WANT_WRITE, deadline);
  const int error = socket_.impl()->socketError();
  if (error != 0) throw HttpsFailure(HttpsFailure::Kind::kConnect, connectReason(error));

  handshakeVerifyError = X509_V_OK;
  for (;;) {
    int rc = 0;
    try {
      ERR_clear_error();
      rc = socket_.completeHandshake();
    } catch (const Poco::TimeoutException&) {
      throw timedOut();
    } catch (const Poco::Exception& e) {
      throw tlsFailure(e);
    }
    if (rc == 1) break;
    if (rc != Poco::Net::SecureStreamSocket::ERR_SSL_WANT_READ &&
        rc != Poco::Net::SecureStreamSocket::ERR_SSL_WANT_WRITE)
      throw HttpsFailure(HttpsFailure::Kind::kTls, "TLS: connection closed during the handshake");
    wait(rc, deadline);
  }

  int matches = 0;
  try {
    const Poco::Net::X509Certificate certificate = socket_.peerCertificate();
    X509* x509 = const_cast<X509*>(certificate.certificate());
    matches = hostIsAddress ? X509_check_ip_asc(x509, host.c_str(), 0)
                            : X509_check_host(x509, host.data(), host.size(),
                                              X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, nullptr);
  } catch (const Poco::Exception&) {
    throw HttpsFailure(HttpsFailure::Kind::kTls, "TLS: no peer certificate");
  }
  if (matches != 1)
    throw HttpsFailure(HttpsFailure::Kind::kTls, "TLS: certificate is not valid for " + host);
}

HttpsConnection::~HttpsConnection() {
  try {
    ERR_clear_error();
    socket_.close();  // close_notify, non-blocking, then the descriptor
  } catch (...) {
  }
  ERR_clear_error();
}

void HttpsConnection::wait(int sslWant, Deadline deadline) {
  const int mode = (sslWant == Poco::Net::SecureStreamSocket::ERR_SSL_WANT_WRITE
                        ? Poco::Net::Socket::SELECT_WRITE
                        : Poco::Net::Socket::SELECT_READ) |
                   Poco::Net::Socket::SELECT_ERROR;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) throw timedOut();
    // poll() counts in milliseconds: round up, and wait again if it woke early.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
    try {
      if (socket_.poll(Poco::Timespan(std::chrono::microseconds(left).count()), mode)) return;
    } catch (const Poco::Exception& e) {
      throw HttpsFailure(HttpsFailure::Kind::kClosed, "connection lost: " + e.displayText());
    }
  }
}

void HttpsConnection::writeAll(const std::string& bytes, Deadline deadline) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const int chunk = static_cast<int>(std::min<std::size_t>(bytes.size() - done, INT_MAX / 2));
    int rc = 0;
    try {
      ERR_clear_error();
      rc = socket_.sendBytes(bytes.data() + done, chunk);
    } catch (const Poco::TimeoutException&) {
      throw timedOut();
    } catch (const Poco::Exception& e) {
      throw HttpsFailure(HttpsFailure::Kind::kClosed, "connection lost: " + sslReason(e));
    }
    if (rc > 0) {
      done += static_cast<std::size_t>(rc);
    } else if (rc == Poco::Net::SecureStreamSocket::ERR_SSL_WANT_READ ||
               rc == Poco::Net::SecureStreamSocket::ERR_SSL_WANT_WRITE) {
      wait(rc, deadline);  // then retry the same write, as OpenSSL requires
    } else {
      throw HttpsFailure(HttpsFailure::Kind::kClosed, "connection closed while sending");
    }
  }
}

std::size_t HttpsConnection::readSome(char* buffer, std::size_t size, Deadline deadline) {
  for (;;) {
    int rc = 0;
    try {
      ERR_clear_error();
      rc = socket_.receiveBytes(buffer, static_cast<int>(std::min<std::size_t>(size, INT_MAX / 2)));
    } catch (const Poco::TimeoutException&) {
      throw timedOut();
    } catch (const Poco::Exception& e) {
      throw HttpsFailure(HttpsFailure::Kind::kClosed, "connection lost: " + sslReason(e));
    }
    if (rc > 0) return static_cast<std::size_t>(rc);
    if (rc == 0) return 0;
    if (rc != Poco::Net::SecureStreamSocket::ERR_SSL_WANT_READ &&
        rc != Poco::Net::SecureStreamSocket::ERR_SSL_WANT_WRITE)
      throw HttpsFailure(HttpsFailure::Kind::kClosed, "connection lost");
    wait(rc, deadline);
  }
}

bool HttpsConnection::idleAndOpen() {
  try {
    if (socket_.available() > 0) return false;
    return !socket_.poll(Poco::Timespan(0),
                         Poco::Net::Socket::SELECT_READ | Poco::Net::Socket::SELECT_ERROR);
  } catch (const Poco::Exception&) {
    return false;
  }
}

}  // namespace rapport::webhooks
