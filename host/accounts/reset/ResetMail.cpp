#include "accounts/reset/ResetMail.h"

#include "http/UrlCoding.h"

namespace rapport::host::accounts::reset {

namespace {

void replaceAll(std::string& text, const std::string& placeholder, const std::string& value) {
  for (std::size_t at = text.find(placeholder); at != std::string::npos;
       at = text.find(placeholder, at + value.size())) {
    text.replace(at, placeholder.size(), value);
  }
}

// "60 minutes", "1 minute", rounded up: the mail never promises more time
// than the token has.
std::string validity(std::int64_t ttlSeconds) {
  const std::int64_t minutes = ttlSeconds <= 60 ? 1 : (ttlSeconds + 59) / 60;
  return std::to_string(minutes) + (minutes == 1 ? " minute" : " minutes");
}

}  // namespace

std::string resetLink(const std::string& urlTemplate, const std::string& token,
                      const std::string& email) {
  std::string link = urlTemplate;
  // The token first: an e-mail address cannot contain "{token}" after
  // encoding (braces are encoded), so no replacement feeds the next one.
  replaceAll(link, "{token}", percentEncode(token));
  replaceAll(link, "{email}", percentEncode(email));
  return link;
}

mail::Letter resetLetter(const std::string& to, const std::string& token, std::int64_t ttlSeconds,
                         const std::string& urlTemplate) {
  mail::Letter letter;
  letter.to = to;
  letter.purpose = "password-reset";
  letter.subject = "Reset your password";
  letter.heading = "Reset your password";
  letter.paragraphs.push_back("Someone asked to reset the password of the " +
                              std::string(mail::kProductName) + " account for " + to + ".");
  const std::string valid = validity(ttlSeconds);
  if (urlTemplate.empty()) {
    letter.paragraphs.push_back(
        "To choose a new password, enter this reset token with your e-mail address where you "
        "asked for the reset. It is valid for " +
        valid + " and works once:");
  } else {
    letter.paragraphs.push_back("To choose a new password, open this link within " + valid + ": " +
                                resetLink(urlTemplate, token, to));
    letter.paragraphs.push_back(
        "Or enter this reset token with your e-mail address where you asked for the reset. It "
        "works once:");
  }
  letter.code = token;
  letter.closing.push_back(
      "If you did not ask for this, ignore this e-mail: your password stays as it is.");
  letter.closing.push_back("Choosing a new password signs you out everywhere you are signed in.");
  return letter;
}

}  // namespace rapport::host::accounts::reset
