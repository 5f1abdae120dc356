// How a message leaves the host: SmtpTransport (mail.smtp.host set) or
// OutboxTransport (.eml files in mail.outbox). Called from the sender job
// (MailService::sendDue) only.
#pragma once

#include <functional>
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

// A temporary refusal of the message itself after the point of no return
// (an SMTP 4xx answer to the end of the data): the server answered, so the
// message was certainly not taken and another attempt is safe.
class TemporaryRefusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Called by a transport right before the step after which the message may
// have been delivered (SMTP: sending the final "." of the data; the outbox:
// renaming the file into place). It records that point durably; when it
// throws, the transport stops there and lets the exception through, and the
// message has not been delivered.
using PointOfNoReturn = std::function<void()>;

class Transport {
 public:
  virtual ~Transport() = default;
  // Delivers `envelope` or throws (std::exception) with a reason that never
  // includes the message's subject or body. Every transport calls
  // `pointOfNoReturn` exactly once before delivering (MailService relies on
  // it to never send a mail twice). Before that call any failure is safe to
  // retry; after it, only a PermanentFailure or a TemporaryRefusal (the
  // other end answered no) says the message was not delivered: any other
  // exception leaves the outcome unknown (docs/mail.md).
  virtual void deliver(const Envelope& envelope, const PointOfNoReturn& pointOfNoReturn) = 0;
  // For the start-up log: "smtp mail.example.com:587", "outbox data/outbox".
  virtual std::string describe() const = 0;
};

}  // namespace rapport::host::mail
