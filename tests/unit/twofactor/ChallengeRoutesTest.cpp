// The login challenge (decisions §4): the gate, the three endpoints, the
// e-mailed code, expiry, the 5-failure limit, replay and concurrency, on
// both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <regex>
#include <thread>
#include <vector>

#include "TwoFactorFixture.h"
#include "accounts/AccountsModule.h"
#include "rapport/ids.h"
#include "rapport/time.h"
#include "ratelimit/MemoryAttemptLog.h"

using namespace rapport::test::twofactor;
using rapport::test::accounts::expectError;
using rapport::test::accounts::hasFieldError;
namespace acc = rapport::host::accounts;

namespace {

// The 6-digit code in a sign-in mail's text.
std::string mailedCode(const rapport::host::mail::MailMessage& message) {
  std::smatch match;
  if (!std::regex_search(message.text, match, std::regex("\\b([0-9]{6})\\b"))) {
    throw std::runtime_error("no code in mail: " + message.text);
  }
  return match[1];
}

// Runs `fn` on `n` threads released together; returns the statuses.
template <typename Fn>
std::vector<int> race(int n, Fn fn) {
  std::vector<int> statuses(static_cast<std::size_t>(n), 0);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < n) std::this_thread::yield();
      try {
        statuses[static_cast<std::size_t>(i)] = fn(i).status;
      } catch (const rapport::Error& e) {
        statuses[static_cast<std::size_t>(i)] = e.status();
      }
    });
  }
  for (auto& t : threads) t.join();
  return statuses;
}

int countOf(const std::vector<int>& statuses, int status) {
  return static_cast<int>(std::count(statuses.begin(), statuses.end(), status));
}

// POST /auth/two-factor/resend for `challenge`; returns the mailed code.
std::string resendFor(TwoFactorFixture& f, const std::string& challenge) {
  f.h.mailer.clear();
  const Response r = f.h.callPublic("POST", "/auth/two-factor/resend",
                                    Json::object({{"two_factor_token", challenge}}));
  if (r.status != 200) throw std::runtime_error("resend failed");
  return mailedCode(f.h.mailer.messages().at(0));
}

// The reset token in a reset mail: the only run of 43 base64url characters.
std::string resetTokenIn(const rapport::host::mail::MailMessage& message) {
  std::smatch match;
  if (!std::regex_search(message.text, match,
                         std::regex("(^|[^A-Za-z0-9_-])([A-Za-z0-9_-]{43})($|[^A-Za-z0-9_-])"))) {
    throw std::runtime_error("no reset token in mail: " + message.text);
  }
  return match[2];
}

// forgot-password, the mail job, reset-password: `email`'s password becomes
// `password`, reset by e-mail.
void resetByMail(TwoFactorFixture& f, const std::string& email, const std::string& password) {
  f.h.mailer.clear();
  f.h.callPublic("POST", "/auth/forgot-password", Json::object({{"email", email}}));
  f.h.runJob("password-reset");
  const std::string token = resetTokenIn(f.h.mailer.messages().at(0));
  const Response r = f.h.callPublic("POST", "/auth/reset-password",
                                    Json::object({{"token", token},
                                                  {"email", email},
                                                  {"password", password},
                                                  {"password_confirmation", password}}));
  if (r.status != 200) throw std::runtime_error("reset failed");
}

// A login with `password`; returns the challenge id.
std::string challengeAfterReset(TwoFactorFixture& f, const std::string& email,
                                const std::string& password) {
  const Response r = f.login(email, false, password);
  if (r.status != 403 || !r.data) throw std::runtime_error("login gave no challenge");
  return (*r.data)["challenge_id"].asString();
}

class NoStopJob : public rapport::JobContext {
 public:
  bool stopping() const override { return false; }
  bool wait(std::chrono::milliseconds) override { return false; }
  unsigned worker() const override { return 0; }
};

}  // namespace

class ChallengeRoutesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ChallengeRoutesTest);
  CPPUNIT_TEST(testLoginAnswersTheChallengeWithoutToken);
  CPPUNIT_TEST(testEachEndpointCompletesTheLogin);
  CPPUNIT_TEST(testRememberMeIsHonoured);
  CPPUNIT_TEST(testBodyValidation);
  CPPUNIT_TEST(testUnknownUsedAndExpiredChallengesAre404);
  CPPUNIT_TEST(testReplayedCodeIsRefused);
  CPPUNIT_TEST(testConcurrentLoginsWithOneCode);
  CPPUNIT_TEST(testConcurrentCompletionsOfOneChallenge);
  CPPUNIT_TEST(testRecoveryCodesAreSingleUse);
  CPPUNIT_TEST(testFiveWrongCodesEndTheChallenge);
  CPPUNIT_TEST(testPerUserBudgetOfWrongCodes);
  CPPUNIT_TEST(testResendMailsACodeThatWorks);
  CPPUNIT_TEST(testResendRateAndValidation);
  CPPUNIT_TEST(testMailedCodeRefusedForADayAfterAResetByMail);
  CPPUNIT_TEST(testSignInWithAMailedCodeMailsANotice);
  CPPUNIT_TEST(testDisabledUserCannotComplete);
  CPPUNIT_TEST(testFailsClosedWithoutGateAndPurges);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testLoginAnswersTheChallengeWithoutToken() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("ann@example.com");
    const Response r = f.login(u.user.email);
    CPPUNIT_ASSERT_EQUAL(403, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Two-factor authentication required."), r.message);
    const Json& data = *r.data;
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, data.size());
    CPPUNIT_ASSERT_EQUAL(true, data["two_factor_required"].asBool());
    CPPUNIT_ASSERT_EQUAL(true, data["pending_2fa"].asBool());
    const std::string id = data["challenge_id"].asString();
    CPPUNIT_ASSERT_EQUAL(id, data["two_factor_token"].asString());
    CPPUNIT_ASSERT(rapport::hasPrefix(id, "tfa_"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{47}, id.size());
    CPPUNIT_ASSERT(!data.contains("token"));
    // Only the hash is stored, with a 10-minute life.
    const auto rows =
        f.h.db->query("SELECT id_hash, created_at, expires_at FROM two_factor_challenges");
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, rows.size());
    CPPUNIT_ASSERT_EQUAL(rapport::sha256Hex(id), rows.front().str("id_hash"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{600'000'000},
                         rows.front().i64("expires_at") - rows.front().i64("created_at"));
    // A wrong password still answers 401, no challenge.
    CPPUNIT_ASSERT_EQUAL(
        401, expectError([&] { f.login(u.user.email, false, "wrong-password-1"); }).status());
  }

  void testEachEndpointCompletesTheLogin() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("bo@example.com");
    for (const std::string path :
         {"/auth/two-factor/challenge", "/auth/two-factor/verify", "/auth/2fa/challenge"}) {
      const std::string challenge = f.challenge(u.user.email);
      const Response r = f.complete(challenge, f.nextCode(u.secret), path);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(path, 200, r.status);
      const Json& data = *r.data;
      CPPUNIT_ASSERT_EQUAL(std::string("Bearer"), data["token_type"].asString());
      CPPUNIT_ASSERT_EQUAL(std::int64_t{3600}, data["expires_in"].asInt());
      CPPUNIT_ASSERT_EQUAL(u.user.userId, data["user"]["id"].asString());
      CPPUNIT_ASSERT_EQUAL(u.user.companyId, data["user"]["company_id"].asString());
      CPPUNIT_ASSERT_EQUAL(u.user.email, data["user"]["email"].asString());
      const rapport::Identity identity = f.h.identityOf(data["token"].asString());
      CPPUNIT_ASSERT_EQUAL(u.user.userId, identity.userId);
    }
    // Variant C also takes challenge_id.
    const std::string challenge = f.challenge(u.user.email);
    const Response c =
        f.h.callPublic("POST", "/auth/2fa/challenge",
                       Json::object({{"challenge_id", challenge}, {"code", f.nextCode(u.secret)}}));
    CPPUNIT_ASSERT_EQUAL(200, c.status);
  }

  void testRememberMeIsHonoured() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("cal@example.com");
    const std::string challenge = f.challenge(u.user.email, true);
    const Response r = f.complete(challenge, f.nextCode(u.secret), "/auth/two-factor/verify");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2592000}, (*r.data)["expires_in"].asInt());
  }

  void testBodyValidation() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("dot@example.com");
    const std::string challenge = f.challenge(u.user.email);
    auto post = [&](const std::string& path, Json body) {
      return expectError([&] { f.h.callPublic("POST", path, std::move(body)); });
    };
    // Neither code nor recovery code.
    rapport::Error e =
        post("/auth/two-factor/challenge", Json::object({{"challenge_id", challenge}}));
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(
        hasFieldError(e, "code", "The code field is required when recovery_code is not present."));
    e = post("/auth/2fa/challenge", Json::object({{"two_factor_token", challenge}}));
    CPPUNIT_ASSERT(hasFieldError(e, "code", ""));
    // Variant B has no recovery code: code is required.
    e = post("/auth/two-factor/verify", Json::object({{"two_factor_token", challenge},
                                                      {"recovery_code", u.recoveryCodes[0]}}));
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "code", "The code field is required."));
    // The challenge field of each variant.
    e = post("/auth/two-factor/challenge", Json::object({{"code", "123456"}}));
    CPPUNIT_ASSERT(hasFieldError(e, "challenge_id", ""));
    e = post("/auth/two-factor/verify", Json::object({{"code", "123456"}}));
    CPPUNIT_ASSERT(hasFieldError(e, "two_factor_token", ""));
    e = post("/auth/2fa/challenge", Json::object({{"code", "123456"}}));
    CPPUNIT_ASSERT(
        hasFieldError(e, "two_factor_token",
                      "The two_factor_token field is required when challenge_id is not present."));
    e = post("/auth/two-factor/challenge",
             Json::object({{"challenge_id", challenge}, {"code", 123456}}));
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    // None of these counted as a wrong code.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         f.count("SELECT SUM(failures) AS n FROM two_factor_challenges"));
  }

  void testUnknownUsedAndExpiredChallengesAre404() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("eli@example.com");
    const std::string code = f.nextCode(u.secret);
    for (const std::string& bogus :
         std::vector<std::string>{"nope", "tfa_" + std::string(43, 'A')}) {
      const rapport::Error e = expectError([&] { f.complete(bogus, code); });
      CPPUNIT_ASSERT_EQUAL(404, e.status());
      CPPUNIT_ASSERT_EQUAL(std::string("Two-factor challenge not found or expired."),
                           std::string(e.what()));
    }
    // Used: 404.
    const std::string used = f.challenge(u.user.email);
    CPPUNIT_ASSERT_EQUAL(200, f.complete(used, code).status);
    CPPUNIT_ASSERT_EQUAL(404,
                         expectError([&] { f.complete(used, f.nextCode(u.secret)); }).status());
    // Expired: alive one microsecond before the end, 404 at it.
    const std::string old = f.challenge(u.user.email);
    f.h.time.advanceMicros(600'000'000 - 1);
    const std::string fresh = f.code(u.secret);
    f.h.time.advanceMicros(1);
    CPPUNIT_ASSERT_EQUAL(404, expectError([&] { f.complete(old, fresh); }).status());
    const std::string other = f.challenge(u.user.email);
    f.h.time.advanceSeconds(599);
    CPPUNIT_ASSERT_EQUAL(200, f.complete(other, f.code(u.secret)).status);
  }

  void testReplayedCodeIsRefused() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("flo@example.com");
    const std::string code = f.nextCode(u.secret);
    CPPUNIT_ASSERT_EQUAL(200, f.complete(f.challenge(u.user.email), code).status);
    const std::string second = f.challenge(u.user.email);
    const rapport::Error e = expectError([&] { f.complete(second, code); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "code", "The two-factor code is invalid."));
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{1},
        f.count("SELECT failures AS n FROM two_factor_challenges WHERE id_hash = ?",
                {rapport::sha256Hex(second)}));
    // Still replayed 29 seconds later (same step), fresh at the next step.
    f.h.time.advanceSeconds(29);
    CPPUNIT_ASSERT_EQUAL(422, expectError([&] { f.complete(second, code); }).status());
    CPPUNIT_ASSERT_EQUAL(200, f.complete(second, f.nextCode(u.secret)).status);
  }

  void testConcurrentLoginsWithOneCode() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("gil@example.com");
    std::vector<std::string> challenges;
    for (int i = 0; i < 4; ++i) challenges.push_back(f.challenge(u.user.email));
    const std::string code = f.nextCode(u.secret);
    const std::vector<int> statuses =
        race(4, [&](int i) { return f.complete(challenges[static_cast<std::size_t>(i)], code); });
    CPPUNIT_ASSERT_EQUAL(1, countOf(statuses, 200));
    CPPUNIT_ASSERT_EQUAL(3, countOf(statuses, 422));
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{1},
        f.count("SELECT COUNT(*) AS n FROM two_factor_challenges WHERE used_at IS NOT NULL"));
  }

  void testConcurrentCompletionsOfOneChallenge() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("hub@example.com");
    const std::string challenge = f.challenge(u.user.email);
    const std::int64_t tokensBefore = f.count("SELECT COUNT(*) AS n FROM tokens");
    // Four different valid recovery codes on one challenge: one token.
    const std::vector<int> statuses = race(4, [&](int i) {
      return f.completeWithRecovery(challenge, u.recoveryCodes[static_cast<std::size_t>(i)]);
    });
    CPPUNIT_ASSERT_EQUAL(1, countOf(statuses, 200));
    CPPUNIT_ASSERT_EQUAL(3, countOf(statuses, 404));
    CPPUNIT_ASSERT_EQUAL(tokensBefore + 1, f.count("SELECT COUNT(*) AS n FROM tokens"));
    // The losers' codes were not consumed.
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{7},
        f.count("SELECT COUNT(*) AS n FROM two_factor_recovery_codes WHERE used_at IS NULL"));
  }

  void testRecoveryCodesAreSingleUse() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("ivy@example.com");
    // Upper case without the dash is the same code.
    std::string typed = u.recoveryCodes[2];
    typed.erase(5, 1);
    for (char& c : typed) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    CPPUNIT_ASSERT_EQUAL(200, f.completeWithRecovery(f.challenge(u.user.email), typed).status);
    const std::string second = f.challenge(u.user.email);
    const rapport::Error e =
        expectError([&] { f.completeWithRecovery(second, u.recoveryCodes[2]); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "recovery_code", "The recovery code is invalid."));
    // Another one still works, via variant C too.
    const Response r = f.h.callPublic(
        "POST", "/auth/2fa/challenge",
        Json::object({{"two_factor_token", second}, {"recovery_code", u.recoveryCodes[5]}}));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{6},
        f.count("SELECT COUNT(*) AS n FROM two_factor_recovery_codes WHERE used_at IS NULL"));
  }

  void testFiveWrongCodesEndTheChallenge() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("jay@example.com");
    const std::string challenge = f.challenge(u.user.email);
    const std::string good = f.nextCode(u.secret);
    const std::string wrong = good == "000000" ? "111111" : "000000";
    for (int i = 1; i <= 4; ++i) {
      const rapport::Error e = expectError([&] { f.complete(challenge, wrong); });
      CPPUNIT_ASSERT_EQUAL(422, e.status());
    }
    // A wrong recovery code counts too: the 5th wrong answer ends it.
    const rapport::Error fifth =
        expectError([&] { f.completeWithRecovery(challenge, "abcde-fghjk"); });
    CPPUNIT_ASSERT_EQUAL(429, fifth.status());
    CPPUNIT_ASSERT(retryAfter(fifth) >= 1);
    // Even the right code is refused now, with 429, until it would have expired.
    const rapport::Error after = expectError([&] { f.complete(challenge, good); });
    CPPUNIT_ASSERT_EQUAL(429, after.status());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{5},
                         f.count("SELECT failures AS n FROM two_factor_challenges"));
    f.h.time.advanceSeconds(600);
    CPPUNIT_ASSERT_EQUAL(404, expectError([&] { f.complete(challenge, good); }).status());
    // The resend of an ended challenge: 429 as well (new challenge to see it before expiry).
    const std::string other = f.challenge(u.user.email);
    for (int i = 0; i < 5; ++i) expectError([&] { f.complete(other, wrong); });
    CPPUNIT_ASSERT_EQUAL(429, expectError([&] {
                                f.h.callPublic("POST", "/auth/two-factor/resend",
                                               Json::object({{"two_factor_token", other}}));
                              }).status());
  }

  void testPerUserBudgetOfWrongCodes() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("kit@example.com");
    const std::string wrong = "000000" == f.code(u.secret) ? "111111" : "000000";
    for (int c = 0; c < 4; ++c) {
      const std::string challenge = f.challenge(u.user.email);
      for (int i = 0; i < 5; ++i) expectError([&] { f.complete(challenge, wrong); });
      f.h.time.advanceSeconds(60);
    }
    // 20 wrong codes within the hour: login of this account answers 429
    // until the oldest is an hour old (the first challenge, 240 s ago).
    const rapport::Error e = expectError([&] { f.login(u.user.email); });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
    CPPUNIT_ASSERT_EQUAL(3600L - 240L, retryAfter(e));
    f.h.time.advanceSeconds(3600 - 240 + 1);
    CPPUNIT_ASSERT_EQUAL(403, f.login(u.user.email).status);
  }

  void testResendMailsACodeThatWorks() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("lou@example.com");
    const std::string challenge = f.challenge(u.user.email, true);
    f.h.mailer.clear();
    const Response r = f.h.callPublic("POST", "/auth/two-factor/resend",
                                      Json::object({{"two_factor_token", challenge}}));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT(!r.data);
    const auto mails = f.h.mailer.messages();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, mails.size());
    CPPUNIT_ASSERT_EQUAL(u.user.email, mails[0].to);
    CPPUNIT_ASSERT_EQUAL(std::string("two-factor-code"), mails[0].purpose);
    const std::string code = mailedCode(mails[0]);
    CPPUNIT_ASSERT(mails[0].html.find(code) != std::string::npos);
    // Stored hashed only.
    const auto row = f.h.db->query("SELECT resend_code_hash FROM two_factor_challenges").front();
    CPPUNIT_ASSERT(row.str("resend_code_hash").find(code) == std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::size_t{64}, row.str("resend_code_hash").size());
    // Another challenge does not take it.
    const std::string other = f.challenge(u.user.email);
    CPPUNIT_ASSERT_EQUAL(
        422, expectError([&] { f.complete(other, code, "/auth/two-factor/verify"); }).status());
    // Its own challenge does, with the login's remember_me.
    const Response done = f.complete(challenge, code, "/auth/two-factor/verify");
    CPPUNIT_ASSERT_EQUAL(200, done.status);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2592000}, (*done.data)["expires_in"].asInt());
  }

  void testResendRateAndValidation() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("max@example.com");
    auto resend = [&](Json body) {
      return f.h.callPublic("POST", "/auth/two-factor/resend", std::move(body));
    };
    const rapport::Error missing = expectError([&] { resend(Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, missing.status());
    CPPUNIT_ASSERT(hasFieldError(missing, "two_factor_token", ""));
    CPPUNIT_ASSERT_EQUAL(404, expectError([&] {
                                resend(Json::object({{"two_factor_token", "tfa_nope"}}));
                              }).status());

    const std::string challenge = f.challenge(u.user.email);
    const Json body = Json::object({{"two_factor_token", challenge}});
    f.h.mailer.clear();
    CPPUNIT_ASSERT_EQUAL(200, resend(body).status);
    const std::string firstCode = mailedCode(f.h.mailer.messages().back());
    const rapport::Error soon = expectError([&] { resend(body); });
    CPPUNIT_ASSERT_EQUAL(429, soon.status());
    CPPUNIT_ASSERT_EQUAL(30L, retryAfter(soon));
    f.h.time.advanceSeconds(29);
    CPPUNIT_ASSERT_EQUAL(1L, retryAfter(expectError([&] { resend(body); })));
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, f.h.mailer.messages().size());
    f.h.time.advanceSeconds(1);
    CPPUNIT_ASSERT_EQUAL(200, resend(body).status);
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, f.h.mailer.messages().size());
    const std::string secondCode = mailedCode(f.h.mailer.messages().back());
    // The newer code replaced the older one.
    if (firstCode != secondCode) {
      CPPUNIT_ASSERT_EQUAL(422, expectError([&] { f.complete(challenge, firstCode); }).status());
    }
    CPPUNIT_ASSERT_EQUAL(200, f.complete(challenge, secondCode).status);
    // A used challenge: 404.
    CPPUNIT_ASSERT_EQUAL(404, expectError([&] { resend(body); }).status());
  }

  void testMailedCodeRefusedForADayAfterAResetByMail() {
    // Decisions §4 (issue 21): whoever reads the mailbox can reset the
    // password and read the e-mailed code; for a day after a reset by
    // e-mail, only the authenticator app or a recovery code passes.
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("pia@example.com");
    const std::string newPassword = "a password set by mail";
    resetByMail(f, u.user.email, newPassword);
    const std::int64_t resetAt = f.h.time.now();
    CPPUNIT_ASSERT_EQUAL(
        resetAt, f.h.db->query("SELECT password_reset_at FROM users WHERE id = ?", {u.user.userId})
                     .front()
                     .i64("password_reset_at"));
    const std::string challenge = challengeAfterReset(f, u.user.email, newPassword);
    const std::string code = resendFor(f, challenge);
    const rapport::Error refused = expectError([&] { f.complete(challenge, code); });
    CPPUNIT_ASSERT_EQUAL(422, refused.status());
    CPPUNIT_ASSERT(
        hasFieldError(refused, "code", "Use your authenticator app or a recovery code."));
    // The right code: no wrong answer counted, the challenge still open.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, f.count("SELECT COALESCE(SUM(failures), 0) AS n FROM "
                                                  "two_factor_challenges"));
    // The authenticator app still passes (oathtool's code).
    CPPUNIT_ASSERT_EQUAL(200, f.complete(challenge, f.nextCode(u.secret)).status);
    // And so does a recovery code.
    CPPUNIT_ASSERT_EQUAL(200,
                         f.completeWithRecovery(challengeAfterReset(f, u.user.email, newPassword),
                                                u.recoveryCodes[0])
                             .status);
    // A second before the day is over: still refused.
    f.h.time.advanceMicros(resetAt + 24 * 3600 * acc::kMicrosPerSecond - 1 - f.h.time.now());
    const std::string late = challengeAfterReset(f, u.user.email, newPassword);
    const std::string lateCode = resendFor(f, late);
    CPPUNIT_ASSERT_EQUAL(422, expectError([&] { f.complete(late, lateCode); }).status());
    // A day after the reset, the e-mailed code works again.
    f.h.time.advanceMicros(1);
    f.h.mailer.clear();
    CPPUNIT_ASSERT_EQUAL(200, f.complete(late, lateCode).status);
    CPPUNIT_ASSERT_EQUAL(std::string("two-factor-notice"), f.h.mailer.messages().at(0).purpose);
  }

  void testSignInWithAMailedCodeMailsANotice() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("quentin@example.com");
    // The authenticator app: no notice.
    f.h.mailer.clear();
    CPPUNIT_ASSERT_EQUAL(200, f.complete(f.challenge(u.user.email), f.nextCode(u.secret)).status);
    CPPUNIT_ASSERT(f.h.mailer.messages().empty());
    // The e-mailed code (no reset on record): it signs in, and a notice goes out.
    const std::string challenge = f.challenge(u.user.email);
    const std::string code = resendFor(f, challenge);
    f.h.mailer.clear();
    const Response done = f.complete(challenge, code, "/auth/two-factor/verify");
    CPPUNIT_ASSERT_EQUAL(200, done.status);
    const auto mails = f.h.mailer.messages();
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, mails.size());
    CPPUNIT_ASSERT_EQUAL(u.user.email, mails[0].to);
    CPPUNIT_ASSERT_EQUAL(std::string("two-factor-notice"), mails[0].purpose);
    CPPUNIT_ASSERT(mails[0].text.find(rapport::isoTimestamp(f.h.time.now())) != std::string::npos);
    CPPUNIT_ASSERT(mails[0].text.find("192.0.2.10") != std::string::npos);
    CPPUNIT_ASSERT(mails[0].text.find(code) == std::string::npos);
  }

  void testDisabledUserCannotComplete() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("ned@example.com");
    const std::string challenge = f.challenge(u.user.email);
    f.h.db->exec("UPDATE users SET disabled = ? WHERE id = ?", {true, u.user.userId});
    CPPUNIT_ASSERT_EQUAL(
        403, expectError([&] { f.complete(challenge, f.nextCode(u.secret)); }).status());
  }

  void testFailsClosedWithoutGateAndPurges() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("oz@example.com");
    // A second module on the same database, its gate removed after setup.
    static acc::PasswordHasher hasher;
    rapport::host::MemoryAttemptLog attempts;
    rapport::test::accounts::FakeHost host(*f.h.db);
    rapport::test::accounts::FakeRegistry registry;
    acc::AccountsModule module(acc::AccountsOptions{}, *f.h.tokens, hasher, f.h.mailer, attempts,
                               f.h.time.clock());
    module.setup(host, registry);
    const std::int64_t tokensBefore = f.count("SELECT COUNT(*) AS n FROM tokens");
    module.setSecondFactorGate({});
    const Json credentials = Json::object({{"email", u.user.email}, {"password", kPassword}});
    const rapport::Error e = expectError([&] {
      registry.call("POST", "/auth/login", rapport::test::accounts::makeRequest(credentials));
    });
    CPPUNIT_ASSERT_EQUAL(503, e.status());
    CPPUNIT_ASSERT_EQUAL(tokensBefore, f.count("SELECT COUNT(*) AS n FROM tokens"));

    // The purge job deletes challenges a day past their expiry, no sooner.
    f.challenge(u.user.email);
    const auto job =
        std::find_if(registry.jobs.begin(), registry.jobs.end(),
                     [](const rapport::Job& j) { return j.name == "two-factor-purge"; });
    CPPUNIT_ASSERT(job != registry.jobs.end());
    NoStopJob context;
    f.h.time.advanceSeconds(600 + 24 * 3600 - 1);
    job->run(context);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1},
                         f.count("SELECT COUNT(*) AS n FROM two_factor_challenges"));
    f.h.time.advanceSeconds(2);
    job->run(context);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         f.count("SELECT COUNT(*) AS n FROM two_factor_challenges"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ChallengeRoutesTest);
