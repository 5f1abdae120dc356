// The second step of a login (decisions §4): the challenge a 2FA account
// gets instead of a token, the three endpoints that complete it, and the
// e-mailed code.
//
//   start()  the SecondFactorGate AuthRoutes::login (and social login) call
//            once the password is right: stores a challenge and answers
//            auth.two_factor_status (403, or 200) with data
//            {two_factor_required, pending_2fa, challenge_id, two_factor_token}
//            (the last two the same value) and no token.
//   POST /auth/two-factor/challenge {challenge_id, code | recovery_code}
//   POST /auth/two-factor/verify    {two_factor_token, code}
//   POST /auth/2fa/challenge        {two_factor_token | challenge_id, code | recovery_code}
//            one handler behind three body readers: the token object with
//            `user`, in the lifetime class of the login's remember_me.
//   POST /auth/two-factor/resend    {two_factor_token}: e-mails a 6-digit
//            code for that challenge (accepted as `code`), one per 30 s.
//
// A mailbox alone must not pass both factors (decisions §4): for 24 hours
// after the password was reset by e-mail (reset/MailedReset.h) the e-mailed
// code is refused, 422 on `code` (kMailboxOnly; not counted as a wrong
// code: it was the right one), while a TOTP or recovery code still works.
// Every sign-in with an e-mailed code mails the user a notice.
//
// A challenge id is "tfa_" + 32 random bytes (base64url); only its SHA-256
// is stored. A challenge lives auth.two_factor.challenge_ttl (600 s), is
// used once, and dies at the 5th wrong code (429 from then on until it
// would have expired; 404 after, like an unknown one). A user whose
// challenges collected 20 wrong codes within an hour gets 429 at login
// until the oldest of them is an hour old: with the per-challenge limit,
// that bounds a guesser who knows the password to 20 guesses an hour.
//
// Success is one transaction: the challenge is marked used, the TOTP step
// advanced (or the recovery code consumed) and the token issued, each a
// conditional update, so two concurrent requests with the same code or
// challenge cannot both get a token.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "accounts/AccountsContext.h"
#include "accounts/twofactor/TwoFactorOptions.h"
#include "rapport/module.h"
#include "rapport/secrets.h"

namespace rapport::host::accounts::twofactor {

inline constexpr std::int64_t kMaxChallengeFailures = 5;
inline constexpr std::int64_t kResendIntervalSeconds = 30;
inline constexpr std::int64_t kResendCodeTtlSeconds = 600;
inline constexpr std::int64_t kUserFailureBudget = 20;
inline constexpr std::int64_t kUserFailureWindowSeconds = 3600;
// The 422 message on `code` for an e-mailed code after a reset by e-mail.
inline constexpr const char* kMailboxOnly = "Use your authenticator app or a recovery code.";

// What one of the three endpoints read from its body.
struct ChallengeAnswer {
  std::string challengeId;
  std::optional<std::string> code;          // TOTP or e-mailed code
  std::optional<std::string> recoveryCode;  // when `code` is absent
  std::string clientAddress;                // for the notice of an e-mailed code
};

class ChallengeRoutes {
 public:
  ChallengeRoutes(AccountsContext& context, const rapport::SecretBox& secrets,
                  TwoFactorOptions options);

  void registerOn(rapport::Registry& registry);

  // The SecondFactorGate.
  rapport::Response start(const UserRecord& user, bool remember);

  // The three body readers (422 on a missing field) and the one handler.
  static ChallengeAnswer readChallenge(const rapport::Request& req);  // variant A
  static ChallengeAnswer readVerify(const rapport::Request& req);     // variant B
  static ChallengeAnswer readTwoFa(const rapport::Request& req);      // variant C
  rapport::Response complete(const ChallengeAnswer& answer);

  rapport::Response resend(const rapport::Request& req);

  // Deletes challenges expired for more than `olderThanSeconds`.
  std::int64_t purge(std::int64_t olderThanSeconds);

 private:
  // Mails `user` that they signed in with an e-mailed code.
  void mailSignInNotice(const UserRecord& user, const std::string& clientAddress, std::int64_t now);

  AccountsContext& ctx_;
  const rapport::SecretBox& secrets_;
  TwoFactorOptions options_;
};

}  // namespace rapport::host::accounts::twofactor
