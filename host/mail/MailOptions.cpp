#include "mail/MailOptions.h"

#include <stdexcept>

namespace rapport::host::mail {

bool isPlainAddress(const std::string& address) {
  if (address.empty() || address.size() > 254) return false;
  std::size_t ats = 0;
  for (char c : address) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u == 0x7f) return false;  // controls, CR, LF, space
    switch (c) {
      case ',':
      case ';':
      case '<':
      case '>':
      case '"':
      case '(':
      case ')':
      case '[':
      case ']':
      case '\\':
      case ':':
        return false;
      case '@':
        ++ats;
        break;
      default:
        break;
    }
  }
  const auto at = address.find('@');
  return ats == 1 && at > 0 && at + 1 < address.size();
}

std::string addressDomain(const std::string& address) {
  const auto at = address.rfind('@');
  return at == std::string::npos ? std::string() : address.substr(at + 1);
}

MailOptions MailOptions::fromConfig(const rapport::Config& config) {
  MailOptions o;
  o.from = config.getString("mail.from", o.from);
  if (!isPlainAddress(o.from)) {
    throw std::invalid_argument("mail.from must be one plain address like no-reply@example.com");
  }
  o.outbox = config.getString("mail.outbox", o.outbox);
  if (o.outbox.empty()) throw std::invalid_argument("mail.outbox must not be empty");
  o.queueSize = static_cast<std::size_t>(
      config.getIntBetween("mail.queue_size", static_cast<std::int64_t>(o.queueSize), 1, 1000000));

  SmtpOptions& s = o.smtp;
  s.host = config.getString("mail.smtp.host", "");
  s.port = static_cast<int>(config.getIntBetween("mail.smtp.port", s.port, 1, 65535));
  s.username = config.getString("mail.smtp.username", "");
  s.password = config.getString("mail.smtp.password", "");
  if (s.username.empty() != s.password.empty()) {
    throw std::invalid_argument(
        "mail.smtp.username and mail.smtp.password must be set together (or both unset)");
  }
  const std::string tls = config.getString("mail.smtp.starttls", "auto");
  if (tls == "auto") {
    s.startTls = StartTls::Auto;
  } else if (tls == "required") {
    s.startTls = StartTls::Required;
  } else if (tls == "off") {
    s.startTls = StartTls::Off;
  } else {
    throw std::invalid_argument("mail.smtp.starttls must be auto, required or off (got '" + tls +
                                "')");
  }
  if (!s.username.empty() && s.startTls == StartTls::Off) {
    throw std::invalid_argument(
        "mail.smtp.starttls=off with mail.smtp.username would send the password in clear");
  }
  s.caFile = config.getString("mail.smtp.ca_file", "");
  s.timeout = std::chrono::seconds(config.getIntBetween("mail.smtp.timeout", 10, 1, 300));
  return o;
}

}  // namespace rapport::host::mail
