// The mailer's settings (mail.* keys, see Settings.cpp), the retry
// schedule and the claim's lease. fromConfig() checks every value and throws std::invalid_argument
// naming the key, so a bad setting stops start-up with one clear line.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "rapport/config.h"

namespace rapport::host::mail {

// mail.smtp.starttls: auto uses STARTTLS when the server offers it,
// required refuses to send in clear, off never uses it.
enum class StartTls { Auto, Required, Off };

struct SmtpOptions {
  std::string host;  // empty: no SMTP, the outbox is used
  int port = 25;
  std::string username;  // empty: no AUTH
  std::string password;
  StartTls startTls = StartTls::Auto;
  std::string caFile;  // extra trusted CA (PEM); the system store otherwise
  std::chrono::seconds timeout{10};
};

struct MailOptions {
  std::string from = "no-reply@localhost";  // the address; From shows "Rapport <from>"
  std::string outbox = "data/outbox";
  SmtpOptions smtp;
  std::size_t queueSize = 1000;  // messages waiting (first try or retry) at most
  // Delay before each attempt, counted from the previous failure: the first
  // entry is the first try (mail.retry_schedule, seconds). After the last
  // attempt fails the message is given up.
  std::vector<std::chrono::milliseconds> retrySchedule = {
      std::chrono::seconds(0), std::chrono::seconds(30), std::chrono::minutes(2),
      std::chrono::minutes(10), std::chrono::minutes(30)};
  // How long a sender's claim on a mail lasts before another sender may take
  // it over (its instance died before the point of no return) or resolve it
  // as unknown (it died after). Longer than an attempt can take: an SMTP
  // exchange is about ten steps, each bounded by smtp.timeout.
  std::chrono::milliseconds lease = std::chrono::seconds(100);

  static MailOptions fromConfig(const rapport::Config& config);
};

// True for one plain address "local@domain": printable ASCII or UTF-8, no
// space, CR, LF, comma, semicolon, quote, parenthesis or angle bracket,
// exactly one '@' with something on both sides.
bool isPlainAddress(const std::string& address);

// The part after '@' (for logs: the domain, never the whole address).
std::string addressDomain(const std::string& address);

}  // namespace rapport::host::mail
