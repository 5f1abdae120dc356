// The one shape of Rapport's account mails: a heading, a few paragraphs, an
// optional code shown prominently, a closing paragraph or two, and the
// product name in the footer. compose() renders it as plain text and as
// HTML (every piece of text escaped), so the flows that send mail (password
// reset, two-factor codes) write words, not markup.
#pragma once

#include <string>
#include <vector>

#include "mail/Mailer.h"

namespace rapport::host::mail {

struct Letter {
  std::string to;
  std::string purpose;                  // MailMessage::purpose
  std::string subject;                  // compose() prefixes "Rapport: "
  std::string heading;                  // first line of the text, <h1> of the HTML
  std::vector<std::string> paragraphs;  // before the code
  std::string code;                     // a token or code, set apart (empty: none)
  std::vector<std::string> closing;     // after the code
};

// The product name in subjects and footers (decisions: the product is Rapport).
inline constexpr const char* kProductName = "Rapport";

MailMessage compose(const Letter& letter);

}  // namespace rapport::host::mail
