// Reading the mails rapportd wrote, as files: the .eml files of mail.outbox
// or of the test SMTP server's maildir (SmtpServer::maildir()). Poco reads
// the MIME and undoes the transfer encodings.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace rapport::test::smtp {

struct Mail {
  std::string file;
  std::string to;       // the To header
  std::string subject;  // the Subject header as stored (may be encoded)
  std::string text;     // the decoded text/plain part
  std::string html;     // the decoded text/html part
};

// Every *.eml in `dir`, oldest name first (both writers name files in order).
std::vector<Mail> readMailbox(const std::string& dir);

// The mails in `dir` addressed to `to`, once there are at least `count` of
// them; polls every 20 ms and throws after `limit`.
std::vector<Mail> waitForMailTo(const std::string& dir, const std::string& to, std::size_t count,
                                std::chrono::milliseconds limit = std::chrono::seconds(10));

}  // namespace rapport::test::smtp
