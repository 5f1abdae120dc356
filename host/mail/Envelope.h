// One message ready to deliver: the MIME text (produced once, by
// makeEnvelope) and what the transports and logs need besides it.
#pragma once

#include <string>

#include "mail/Mailer.h"

namespace rapport::host::mail {

struct Envelope {
  std::string id;       // ours, for logs: "mail_..." (also in Message-ID)
  std::string from;     // envelope sender (MAIL FROM)
  std::string to;       // one recipient (RCPT TO)
  std::string purpose;  // for logs
  std::string mime;     // the whole message, headers and body, CRLF line ends
};

// Builds the MIME text of `message` with Poco::Net::MailMessage:
// From "Rapport <from>", To, an RFC 2047 encoded Subject, Date, Message-ID,
// MIME-Version and a multipart/alternative body of text/plain and (when
// `message.html` is set) text/html, both UTF-8 quoted-printable.
// Throws std::invalid_argument for a recipient that is not a plain address
// or a subject with a line break (header injection; the caller's bug).
Envelope makeEnvelope(const MailMessage& message, const std::string& from);

}  // namespace rapport::host::mail
