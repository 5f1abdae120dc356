// Delivers over SMTP with Poco::Net::SMTPClientSession: connect (bounded by
// mail.smtp.timeout, as is every read and write), EHLO, STARTTLS when the
// server offers it (mail.smtp.starttls=auto), always (required: a server
// that does not offer it gets nothing) or never (off), then AUTH PLAIN or
// LOGIN when mail.smtp.username is set - only over TLS: the password is
// never sent in clear - and MAIL FROM, RCPT TO, DATA with the prepared
// MIME text, QUIT. One connection per message (account mail is rare).
// The final "." of the data is the point of no return (Transport.h).
//
// TLS: at least TLS 1.2; the server's certificate chain is verified against
// the system CA store plus mail.smtp.ca_file, and its name against
// mail.smtp.host (DNS name or IP address).
#pragma once

#include <string>

#include "mail/MailOptions.h"
#include "mail/Transport.h"

namespace rapport::host::mail {

class SmtpTransport : public Transport {
 public:
  explicit SmtpTransport(SmtpOptions options);

  // Throws std::runtime_error with the SMTP step and the server's answer
  // (PermanentFailure, TemporaryRefusal: see Transport.h).
  void deliver(const Envelope& envelope, const PointOfNoReturn& pointOfNoReturn) override;
  std::string describe() const override;

 private:
  SmtpOptions options_;
};

}  // namespace rapport::host::mail
