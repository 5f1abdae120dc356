#include "accounts/verification/VerificationMail.h"

#include "accounts/reset/ResetMail.h"

namespace rapport::host::accounts::verification {

std::string verificationValidity(std::int64_t ttlSeconds) {
  if (ttlSeconds >= 3600 && ttlSeconds % 3600 == 0) {
    const std::int64_t hours = ttlSeconds / 3600;
    return std::to_string(hours) + (hours == 1 ? " hour" : " hours");
  }
  const std::int64_t minutes = ttlSeconds <= 60 ? 1 : (ttlSeconds + 59) / 60;
  return std::to_string(minutes) + (minutes == 1 ? " minute" : " minutes");
}

mail::Letter verificationLetter(const std::string& to, const std::string& token,
                                std::int64_t ttlSeconds, const std::string& urlTemplate) {
  mail::Letter letter;
  letter.to = to;
  letter.purpose = "email-verification";
  letter.subject = "Verify your e-mail address";
  letter.heading = "Verify your e-mail address";
  letter.paragraphs.push_back("Someone signed in to the " + std::string(mail::kProductName) +
                              " account for " + to + " asked to verify this address.");
  const std::string valid = verificationValidity(ttlSeconds);
  if (urlTemplate.empty()) {
    letter.paragraphs.push_back(
        "To verify it, enter this verification token where you asked for it. It is valid for " +
        valid + " and works once:");
  } else {
    // The same {token}/{email} template rules as the reset link.
    letter.paragraphs.push_back("To verify it, open this link within " + valid + ": " +
                                reset::resetLink(urlTemplate, token, to));
    letter.paragraphs.push_back(
        "Or enter this verification token where you asked for it. It works once:");
  }
  letter.code = token;
  letter.closing.push_back(
      "If you did not ask for this, ignore this e-mail and consider resetting your password: "
      "someone else may be using an account with your address.");
  return letter;
}

}  // namespace rapport::host::accounts::verification
