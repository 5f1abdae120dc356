// Reading the mails rapportd wrote (mail.outbox .eml files, or the test SMTP
// server's maildir) in the e2e.reset suite, and the SMTP server itself.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace rapport::e2e::reset {

struct Mail {
  std::string file;
  std::string to;       // the To header
  std::string subject;  // the Subject header as stored (may be encoded)
  std::string text;     // the decoded text/plain part
  std::string html;     // the decoded text/html part
};

// Every *.eml in `dir`, oldest name first (both writers name files in order).
std::vector<Mail> readMailbox(const std::string& dir);

// Waits (polling every 20 ms) until `dir` holds at least `count` mails, at
// most `limit`; returns them (fewer when the limit passed).
std::vector<Mail> waitForMail(const std::string& dir, std::size_t count,
                              std::chrono::milliseconds limit = std::chrono::seconds(10));

// The reset token in a mail's text: the only run of 43 base64url characters
// standing alone. Throws when there is none.
std::string resetTokenIn(const Mail& mail);

// tests/support/smtp/smtp_server.py on a port of its choosing, stopped (SIGTERM)
// when destroyed.
class SmtpServer {
 public:
  SmtpServer();
  ~SmtpServer();
  SmtpServer(const SmtpServer&) = delete;
  SmtpServer& operator=(const SmtpServer&) = delete;

  int port() const { return port_; }
  const std::string& maildir() const { return maildir_; }

 private:
  int pid_ = -1;
  int port_ = 0;
  std::string maildir_;
};

}  // namespace rapport::e2e::reset
