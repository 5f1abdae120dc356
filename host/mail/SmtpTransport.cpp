#include "mail/SmtpTransport.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <Poco/Exception.h>
#include <Poco/Net/Context.h>
#include <Poco/Net/DNS.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SMTPClientSession.h>
#include <Poco/Net/SecureStreamSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/X509Certificate.h>
#include <Poco/String.h>
#include <Poco/Timespan.h>

#include <sstream>
#include <stdexcept>
#include <vector>

#include "net/TlsClient.h"

namespace rapport::host::mail {

namespace {

// The first chain error of the handshake on this thread (for the log line).
thread_local int handshakeVerifyError = X509_V_OK;

// OpenSSL's verdict stands (a bad chain fails the handshake); this replaces
// Poco's SSLManager callback, which would consult an application-wide
// certificate handler.
int verifyCallback(int preverifyOk, X509_STORE_CTX* store) {
  if (preverifyOk == 0 && handshakeVerifyError == X509_V_OK) {
    handshakeVerifyError = X509_STORE_CTX_get_error(store);
  }
  return preverifyOk;
}

// net::clientTlsContext, with the chain error kept for the log line. The
// name is checked after the handshake (checkPeerName).
Poco::Net::Context::Ptr clientContext(const std::string& caFile) {
  Poco::Net::Context::Ptr context = net::clientTlsContext(caFile);
  SSL_CTX_set_verify(context->sslContext(), SSL_VERIFY_PEER, &verifyCallback);
  return context;
}

// SMTPClientSession with the socket and the AUTH steps within reach.
class Session : public Poco::Net::SMTPClientSession {
 public:
  explicit Session(const Poco::Net::StreamSocket& socket) : SMTPClientSession(socket) {}
  using SMTPClientSession::loginUsingLogin;
  using SMTPClientSession::loginUsingPlain;
  using SMTPClientSession::socket;
};

std::string firstLine(const std::string& response) {
  const auto end = response.find_first_of("\r\n");
  return end == std::string::npos ? response : response.substr(0, end);
}

[[noreturn]] void fail(const std::string& step, const std::string& response) {
  throw std::runtime_error(step + ": " + firstLine(response));
}

// A refusal of the mail itself: permanent on a 5xx answer (RFC 5321 §4.2.1).
[[noreturn]] void refused(const std::string& step, const std::string& response, int status) {
  const std::string what = "SMTP: " + step + ": " + firstLine(response);
  if (status / 100 == 5) throw PermanentFailure(what);
  throw std::runtime_error(what);
}

// The keywords of an EHLO answer ("250-STARTTLS", "250 AUTH PLAIN LOGIN"),
// upper-cased, one line each without the status.
std::vector<std::string> extensions(const std::string& response) {
  std::vector<std::string> out;
  std::istringstream in(response);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (first) {  // the greeting line names the server, not an extension
      first = false;
      continue;
    }
    if (line.size() > 4) out.push_back(Poco::toUpper(line.substr(4)));
  }
  return out;
}

bool offers(const std::vector<std::string>& exts, const std::string& keyword) {
  for (const auto& e : exts) {
    if (e == keyword || e.rfind(keyword + " ", 0) == 0) return true;
  }
  return false;
}

bool offersAuth(const std::vector<std::string>& exts, const std::string& mechanism) {
  for (const auto& e : exts) {
    if (e.rfind("AUTH ", 0) != 0 && e.rfind("AUTH=", 0) != 0) continue;
    std::istringstream words(e.substr(5));
    std::string word;
    while (words >> word) {
      if (word == mechanism) return true;
    }
  }
  return false;
}

std::string localName() {
  try {
    const std::string name = Poco::Net::DNS::hostName();
    if (!name.empty()) return name;
  } catch (const Poco::Exception&) {
  }
  return "localhost";
}

std::vector<std::string> ehlo(Session& session, const std::string& name) {
  std::string response;
  const int status = session.sendCommand("EHLO", name, response);
  if (status / 100 == 2) return extensions(response);
  // A server without ESMTP: HELO, and no extensions.
  if (session.sendCommand("HELO", name, response) / 100 != 2) fail("HELO refused", response);
  return {};
}

void checkPeerName(Poco::Net::SecureStreamSocket& socket, const std::string& host) {
  if (!net::certificateMatchesHost(socket.peerCertificate(), host)) {
    throw std::runtime_error("TLS: certificate is not valid for " + host);
  }
}

// The message as DATA carries it: CRLF line ends, a line that starts with
// "." gets another one (RFC 5321 §4.5.2), ending with CRLF; without the
// final "." line, which endData() sends.
std::string dotStuffed(const std::string& mime) {
  std::string out;
  out.reserve(mime.size() + mime.size() / 32 + 2);
  std::size_t start = 0;
  while (start < mime.size()) {
    std::size_t end = mime.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = mime.size();
    std::size_t stop = end;
    if (stop > start && mime[stop - 1] == '\r') --stop;
    if (mime[start] == '.') out.push_back('.');
    out.append(mime, start, stop - start);
    out.append("\r\n");
    start = last ? mime.size() : end + 1;
  }
  return out;
}

void sendAll(Poco::Net::StreamSocket& socket, const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    const int n = socket.sendBytes(data.data() + sent, static_cast<int>(data.size() - sent));
    if (n <= 0) throw std::runtime_error("SMTP: the connection closed while sending the message");
    sent += static_cast<std::size_t>(n);
  }
}

// The final "." and the server's verdict: a 2xx took the message, a 5xx or
// 4xx answer refused it (PermanentFailure, TemporaryRefusal); any other
// failure (a timeout, a lost connection) leaves it unknown, so it is a plain
// std::runtime_error (Transport.h).
void endData(Session& session) {
  std::string response;
  int status = 0;
  try {
    status = session.sendCommand(".", response);
  } catch (const Poco::TimeoutException&) {
    throw std::runtime_error("SMTP: no answer to the end of the message (timed out)");
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("SMTP: no answer to the end of the message: " + e.displayText());
  }
  if (status / 100 == 2) return;
  const std::string what = "SMTP: message refused: " + firstLine(response);
  if (status / 100 == 5) throw PermanentFailure(what);
  throw TemporaryRefusal(what);
}

}  // namespace

SmtpTransport::SmtpTransport(SmtpOptions options) : options_(std::move(options)) {
  if (options_.host.empty()) throw std::invalid_argument("mail.smtp.host is not set");
  clientContext(options_.caFile);  // a bad mail.smtp.ca_file stops start-up
}

std::string SmtpTransport::describe() const {
  const char* tls = options_.startTls == StartTls::Required ? "required"
                    : options_.startTls == StartTls::Off    ? "off"
                                                            : "auto";
  return "smtp " + options_.host + ":" + std::to_string(options_.port) + " starttls=" + tls +
         (options_.username.empty() ? "" : " auth");
}

void SmtpTransport::deliver(const Envelope& envelope, const PointOfNoReturn& pointOfNoReturn) {
  const Poco::Timespan timeout(static_cast<long>(options_.timeout.count()), 0);
  try {
    Poco::Net::StreamSocket socket;
    socket.connect(
        Poco::Net::SocketAddress(options_.host, static_cast<Poco::UInt16>(options_.port)), timeout);
    socket.setReceiveTimeout(timeout);
    socket.setSendTimeout(timeout);
    Session session(socket);
    session.setTimeout(timeout);
    session.open();  // the greeting; throws unless 2xx
    const std::string name = localName();
    std::vector<std::string> exts = ehlo(session, name);

    bool secure = false;
    if (options_.startTls != StartTls::Off && offers(exts, "STARTTLS")) {
      std::string response;
      if (session.sendCommand("STARTTLS", response) / 100 != 2) {
        fail("STARTTLS refused", response);
      }
      handshakeVerifyError = X509_V_OK;
      Poco::Net::SecureStreamSocket tls;
      try {
        tls = Poco::Net::SecureStreamSocket::attach(session.socket(), options_.host,
                                                    clientContext(options_.caFile));
      } catch (const Poco::Exception& e) {
        if (handshakeVerifyError != X509_V_OK) {
          throw std::runtime_error(std::string("TLS: certificate verify failed: ") +
                                   X509_verify_cert_error_string(handshakeVerifyError));
        }
        throw std::runtime_error("TLS: " + e.displayText());
      }
      checkPeerName(tls, options_.host);
      session.socket() = tls;
      session.setTimeout(timeout);
      secure = true;
      exts = ehlo(session, name);  // RFC 3207: forget what was said in clear
    }
    if (!secure && options_.startTls == StartTls::Required) {
      throw std::runtime_error(
          "the SMTP server does not offer STARTTLS and mail.smtp.starttls is required");
    }

    if (!options_.username.empty()) {
      if (!secure) {
        throw std::runtime_error(
            "the SMTP server does not offer STARTTLS: refusing to send the password in clear");
      }
      if (offersAuth(exts, "PLAIN")) {
        session.loginUsingPlain(options_.username, options_.password);
      } else if (offersAuth(exts, "LOGIN")) {
        session.loginUsingLogin(options_.username, options_.password);
      } else {
        throw std::runtime_error("the SMTP server offers neither AUTH PLAIN nor AUTH LOGIN");
      }
    }

    std::string response;
    int status = session.sendCommand("MAIL FROM:<" + envelope.from + ">", response);
    if (status / 100 != 2) refused("MAIL FROM refused", response, status);
    status = session.sendCommand("RCPT TO:<" + envelope.to + ">", response);
    if (status / 100 != 2) refused("RCPT TO refused", response, status);
    status = session.sendCommand("DATA", response);
    if (status / 100 != 3) refused("DATA refused", response, status);
    sendAll(session.socket(), dotStuffed(envelope.mime));
    // Until the final "." the server has taken nothing (RFC 5321 §4.1.1.4,
    // §6.1: it takes the message when it answers the end of the data); from
    // there a lost answer leaves the outcome unknown (RFC 1047).
    pointOfNoReturn();
    endData(session);
    try {
      session.close();  // QUIT; the message is already accepted
    } catch (const Poco::Exception&) {
    }
  } catch (const Poco::Net::SMTPException& e) {
    // The server's answer, e.g. "The server rejected the message: 451 ...".
    throw std::runtime_error("SMTP: " +
                             firstLine(e.message().empty() ? e.displayText() : e.message()));
  } catch (const Poco::TimeoutException&) {
    throw std::runtime_error("SMTP: timed out after " + std::to_string(options_.timeout.count()) +
                             " s");
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("SMTP: " + e.displayText());
  }
}

}  // namespace rapport::host::mail
