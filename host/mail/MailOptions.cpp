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

namespace {

constexpr std::size_t kMaxRetries = 20;
constexpr long long kMaxDelaySeconds = 24 * 3600;  // a reset link lasts an hour

// mail.retry_schedule: "0,30,120,600,1800", whole seconds.
std::vector<std::chrono::milliseconds> retryScheduleFrom(const rapport::Config& config,
                                                         const std::vector<std::string>& fallback) {
  const std::string key = "mail.retry_schedule";
  const std::vector<std::string> items = config.getList(key, fallback);
  if (items.empty() || items.size() > kMaxRetries) {
    throw std::invalid_argument(key + " must list 1 to 20 delays in seconds");
  }
  std::vector<std::chrono::milliseconds> out;
  for (const std::string& item : items) {
    const bool digits = !item.empty() && item.size() <= 6 &&
                        item.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoll(item) > kMaxDelaySeconds) {
      throw std::invalid_argument(key + ": \"" + item +
                                  "\" is not a number of seconds from 0 to 86400");
    }
    out.emplace_back(std::chrono::seconds(std::stoll(item)));
  }
  return out;
}

std::vector<std::string> secondsList(const std::vector<std::chrono::milliseconds>& delays) {
  std::vector<std::string> out;
  for (const auto& d : delays) {
    out.push_back(std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()));
  }
  return out;
}

}  // namespace

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
  o.retrySchedule = retryScheduleFrom(config, secondsList(o.retrySchedule));
  o.lease = 10 * s.timeout;
  return o;
}

}  // namespace rapport::host::mail
