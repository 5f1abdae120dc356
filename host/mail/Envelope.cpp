#include "mail/Envelope.h"

#include <Poco/Net/MailMessage.h>
#include <Poco/Net/MailRecipient.h>
#include <Poco/Net/MediaType.h>
#include <Poco/Net/StringPartSource.h>
#include <Poco/Timestamp.h>

#include <sstream>
#include <stdexcept>

#include "mail/Letter.h"
#include "mail/MailOptions.h"
#include "rapport/ids.h"

namespace rapport::host::mail {

namespace {

bool hasLineBreak(const std::string& text) {
  return text.find_first_of("\r\n") != std::string::npos;
}

// Every line end as CRLF (RFC 5322), whatever the caller wrote.
std::string crlf(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r') {
      out.append("\r\n");
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else if (c == '\n') {
      out.append("\r\n");
    } else {
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

Envelope makeEnvelope(const MailMessage& message, const std::string& from) {
  if (!isPlainAddress(message.to)) {
    throw std::invalid_argument("mail recipient must be one plain address");
  }
  if (!isPlainAddress(from)) throw std::invalid_argument("mail sender must be one plain address");
  if (hasLineBreak(message.subject)) {
    throw std::invalid_argument("mail subject must not contain a line break");
  }
  if (message.text.empty()) throw std::invalid_argument("mail text part must not be empty");

  Envelope envelope;
  envelope.id = rapport::newId("mail_");
  envelope.from = from;
  envelope.to = message.to;
  envelope.purpose = message.purpose;

  Poco::Net::MailMessage mime;
  mime.setSender(std::string(kProductName) + " <" + from + ">");
  mime.addRecipient(
      Poco::Net::MailRecipient(Poco::Net::MailRecipient::PRIMARY_RECIPIENT, message.to));
  mime.setSubject(Poco::Net::MailMessage::encodeWord(message.subject, "UTF-8"));
  mime.setDate(Poco::Timestamp());
  mime.set("Message-ID", "<" + envelope.id + "@" + addressDomain(from) + ">");
  mime.set("Auto-Submitted", "auto-generated");  // RFC 3834: no auto-replies
  if (message.html.empty()) {
    mime.set("Mime-Version", "1.0");
    mime.setContentType("text/plain; charset=UTF-8");
    mime.setContent(crlf(message.text), Poco::Net::MailMessage::ENCODING_QUOTED_PRINTABLE);
  } else {
    mime.setContentType(Poco::Net::MediaType("multipart", "alternative"));
    // Least preferred first (RFC 2046 §5.1.4): the client shows the HTML.
    mime.addPart(
        "", new Poco::Net::StringPartSource(crlf(message.text), "text/plain; charset=UTF-8"),
        Poco::Net::MailMessage::CONTENT_INLINE, Poco::Net::MailMessage::ENCODING_QUOTED_PRINTABLE);
    mime.addPart(
        "", new Poco::Net::StringPartSource(crlf(message.html), "text/html; charset=UTF-8"),
        Poco::Net::MailMessage::CONTENT_INLINE, Poco::Net::MailMessage::ENCODING_QUOTED_PRINTABLE);
  }
  std::ostringstream out;
  mime.write(out);
  envelope.mime = out.str();
  return envelope;
}

}  // namespace rapport::host::mail
