// How a message leaves the host: SmtpTransport (mail.smtp.host set) or
// OutboxTransport (.eml files in mail.outbox). Called from the mailer's one
// sender thread only.
#pragma once

#include <stdexcept>
#include <string>

#include "mail/Envelope.h"

namespace rapport::host::mail {

// A refusal that another attempt would not change (an SMTP 5xx answer to
// MAIL FROM, RCPT TO or the message): the mailer gives the message up at
// once instead of retrying.
class PermanentFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Delivers `envelope` or throws (std::exception) with a reason that never
  // includes the message's subject or body; the mailer retries, except
  // after a PermanentFailure.
  virtual void deliver(const Envelope& envelope) = 0;
  // For the start-up log: "smtp mail.example.com:587", "outbox data/outbox".
  virtual std::string describe() const = 0;
};

}  // namespace rapport::host::mail
