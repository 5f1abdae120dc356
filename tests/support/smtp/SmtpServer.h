// The test SMTP server (smtp_server.py beside this file, aiosmtpd) as a
// child process, for unit and end-to-end tests that need a real SMTP peer.
// Add ${PROJECT_SOURCE_DIR}/tests/support/smtp/SmtpServer.cpp to the test's
// SOURCES and include "support/smtp/SmtpServer.h".
//
//   SmtpServer smtp;                                   // plain, on 127.0.0.1
//   ServerProcess server(ServerProcess::Settings{{"mail.smtp.host", "127.0.0.1"},
//                                                {"mail.smtp.port", std::to_string(smtp.port())}});
//   ... POST /v1/auth/forgot-password ...
//   const auto mail = smtp.waitForMessages(1).front();   // waits on the maildir
//   CPPUNIT_ASSERT(mail.text.find("Reset your password") != std::string::npos);
//
// With STARTTLS (a certificate for 127.0.0.1 and localhost signed by a
// throw-away CA; trust it with mail.smtp.ca_file = SmtpServer::certificates().caFile)
// and AUTH:
//   SmtpServer smtp(SmtpServer::Options().withStartTls().withAuth("mailer:s3cret"));
// The server stops (SIGTERM) when the object goes.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "support/TestCa.h"

namespace rapport::test::smtp {

// Certificates of a throw-away CA (support/TestCa.h).
using rapport::test::Certificates;

// One received message: the file, its envelope and the parts as Python's
// `email` package reads them (headers decoded, parts decoded to text), an
// independent check of the MIME the mailer wrote.
struct ReceivedMail {
  std::string path;  // <maildir>/000001.eml
  std::string raw;   // the file as received
  std::string mailFrom;
  std::vector<std::string> rcptTos;
  bool tls = false;         // delivered after STARTTLS
  std::string authUser;     // "" without AUTH
  std::string from;         // From header, decoded
  std::string to;           // To header
  std::string subject;      // decoded (RFC 2047)
  std::string date;         // Date header
  std::string messageId;    // Message-ID header
  std::string contentType;  // of the whole message ("multipart/alternative")
  std::string text;         // the text/plain part, decoded ("" when none)
  std::string html;         // the text/html part, decoded ("" when none)
};

// Reads one .eml file (any, an outbox file too) as ReceivedMail; the
// envelope fields are filled from <name>.json when it exists.
ReceivedMail readMail(const std::string& emlPath);

class SmtpServer {
 public:
  struct Options {
    bool starttls = false;                // offer STARTTLS with certificates()
    bool requireStarttls = false;         // refuse mail before STARTTLS
    std::string auth;                     // "USER:PASS": require AUTH (after STARTTLS)
    double delaySeconds = 0;              // sleep before answering each DATA
    int failFirst = 0;                    // answer the first N DATA with 451
    std::vector<std::string> rejectRcpt;  // answer RCPT TO these with 550
    // Another server certificate and key (for example one no CA trusts).
    std::string certFile;
    std::string keyFile;

    // Chainable (designated initializers would warn about the strings left out):
    //   SmtpServer smtp(SmtpServer::Options().withStartTls().withAuth("u:p"));
    Options& withStartTls() {
      starttls = true;
      return *this;
    }
    Options& withRequiredStartTls() {
      starttls = requireStarttls = true;
      return *this;
    }
    Options& withAuth(std::string userColonPassword) {
      auth = std::move(userColonPassword);
      return *this;
    }
    Options& withDelay(double seconds) {
      delaySeconds = seconds;
      return *this;
    }
    Options& withRejectedRecipient(std::string address) {
      rejectRcpt.push_back(std::move(address));
      return *this;
    }
    Options& withFailFirst(int n) {
      failFirst = n;
      return *this;
    }
    Options& withCertificate(std::string cert, std::string key) {
      certFile = std::move(cert);
      keyFile = std::move(key);
      return *this;
    }
  };

  // Starts the server and waits until it listens (throws with its log).
  explicit SmtpServer(Options options);
  SmtpServer() : SmtpServer(Options{}) {}
  ~SmtpServer();
  SmtpServer(const SmtpServer&) = delete;
  SmtpServer& operator=(const SmtpServer&) = delete;

  int port() const { return port_; }
  const std::string& maildir() const { return maildir_; }
  // The .eml files stored so far, in arrival order.
  std::vector<std::string> files() const;
  // Waits until at least `count` messages were stored and returns the first
  // `count` (throws, with the server's log, after `limit`).
  std::vector<ReceivedMail> waitForMessages(
      std::size_t count, std::chrono::milliseconds limit = std::chrono::seconds(15)) const;
  std::string log() const;

  static const Certificates& certificates();
  // A second CA's certificate for 127.0.0.1 (trusted by nobody).
  static const Certificates& untrustedCertificates();
  // A certificate for mail.other.test only, signed by its own CA (caFile).
  static const Certificates& wrongNameCertificates();
  static std::string scriptPath();
  // The Python with aiosmtpd: /usr/bin/python3 when present (Debian's, where
  // python3-aiosmtpd lives), else python3 from PATH.
  static std::string python();

 private:
  std::string dir_;
  std::string maildir_;
  std::string logPath_;
  int pid_ = -1;
  int port_ = 0;
};

}  // namespace rapport::test::smtp
