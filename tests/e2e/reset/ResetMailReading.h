// The reset token in a reset mail (tests/support/smtp/Mailbox.h reads the mails).
#pragma once

#include <regex>
#include <stdexcept>
#include <string>

#include "support/smtp/Mailbox.h"

namespace rapport::e2e::reset {

// The only run of 43 base64url characters standing alone in the mail's text.
// Throws when there is none.
inline std::string resetTokenIn(const rapport::test::smtp::Mail& mail) {
  static const std::regex token("(^|[^A-Za-z0-9_-])([A-Za-z0-9_-]{43})($|[^A-Za-z0-9_-])");
  std::smatch match;
  if (!std::regex_search(mail.text, match, token)) {
    throw std::runtime_error("no reset token in " + mail.file + ":\n" + mail.text);
  }
  return match[2];
}

}  // namespace rapport::e2e::reset
