// forgot-password and reset-password (decisions §6) through the fake
// Registry, with a hand-moved clock, on both engines: the same answer for
// known and unknown addresses, the mail sent by the background job, the
// token's life (single use, 60 minutes, bound to its e-mail), the
// per-address limits, common passwords, and the e-mail change that needs
// the current password.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <regex>

#include "AccountsHarness.h"
#include "rapport/ids.h"

using rapport::Json;
using rapport::Response;
using rapport::host::mail::MailMessage;
using rapport::test::accounts::AccountsHarness;
using rapport::test::accounts::expectError;
using rapport::test::accounts::hasFieldError;
using User = AccountsHarness::User;

namespace {

const std::string kPassword = "ann-s3cret-phrase";  // the harness's
const std::string kNewPassword = "a much newer secret";
const std::string kForgotMessage =
    "If an account exists for this e-mail address, a password reset link has been sent to it.";
const std::string kInvalidToken = "This password reset token is invalid or has expired.";
const std::string kCommon = "This password is too common. Please choose a less common one.";

Json resetBody(const std::string& token, const std::string& email,
               const std::string& password = kNewPassword) {
  return Json::object({{"token", token},
                       {"email", email},
                       {"password", password},
                       {"password_confirmation", password}});
}

// The reset token in a mail: the only run of 43 base64url characters.
std::string tokenIn(const MailMessage& message) {
  static const std::regex token("(^|[^A-Za-z0-9_-])([A-Za-z0-9_-]{43})($|[^A-Za-z0-9_-])");
  std::smatch match;
  if (!std::regex_search(message.text, match, token)) {
    throw std::runtime_error("no reset token in: " + message.text);
  }
  return match[2];
}

std::string retryAfter(const rapport::Error& e) {
  for (const auto& [name, value] : e.headers()) {
    if (name == "Retry-After") return value;
  }
  return "";
}

}  // namespace

class PasswordResetTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(PasswordResetTest);
  CPPUNIT_TEST(testSameAnswerForKnownAndUnknownAddresses);
  CPPUNIT_TEST(testMailIsSentByTheJob);
  CPPUNIT_TEST(testOnlyTheHashIsStored);
  CPPUNIT_TEST(testResetWorksOnceAndRevokesEveryToken);
  CPPUNIT_TEST(testTokenExpires);
  CPPUNIT_TEST(testTokenOfAnotherEmail);
  CPPUNIT_TEST(testNewRequestReplacesEarlierToken);
  CPPUNIT_TEST(testOneMailPerMinimumInterval);
  CPPUNIT_TEST(testEmailChangeKillsToken);
  CPPUNIT_TEST(testDisabledAndPasswordlessUsers);
  CPPUNIT_TEST(testForgotValidationAndThrottle);
  CPPUNIT_TEST(testWrongTokensAreThrottled);
  CPPUNIT_TEST(testResetValidation);
  CPPUNIT_TEST(testCommonPasswordsRefused);
  CPPUNIT_TEST(testPurge);
  CPPUNIT_TEST(testEmailChangeNeedsCurrentPassword);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    h_ = std::make_unique<AccountsHarness>();
    ann_ = h_->registerUser("Ann@Example.com");
  }

  void tearDown() override { h_.reset(); }

  void testSameAnswerForKnownAndUnknownAddresses() {
    const Response known = forgot("ann@example.com");
    const Response unknown = forgot("nobody@example.com", "198.51.100.1");
    for (const Response* r : {&known, &unknown}) {
      CPPUNIT_ASSERT_EQUAL(200, r->status);
      CPPUNIT_ASSERT_EQUAL(kForgotMessage, r->message);
      CPPUNIT_ASSERT(!r->data);
      CPPUNIT_ASSERT(r->headers.empty());
    }
    // Nothing was looked up or sent while answering.
    CPPUNIT_ASSERT(h_->mailer.messages().empty());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), rows());
  }

  void testMailIsSentByTheJob() {
    forgot("ANN@example.com");
    forgot("nobody@example.com");
    h_->runJob("password-reset");
    const auto sent = h_->mailer.messages();
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), sent.size());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann@Example.com"), sent[0].to);  // her spelling
    CPPUNIT_ASSERT_EQUAL(std::string("password-reset"), sent[0].purpose);
    CPPUNIT_ASSERT(sent[0].subject.find("Reset your password") != std::string::npos);
    CPPUNIT_ASSERT(sent[0].text.find("60 minutes") != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::size_t(43), tokenIn(sent[0]).size());
    // The queue is empty: another pass sends nothing.
    h_->runJob("password-reset");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), h_->mailer.messages().size());
  }

  void testOnlyTheHashIsStored() {
    const std::string token = requestToken();
    const rapport::Result row = h_->db->query(
        "SELECT token_hash, user_id, email_lower, created_at, expires_at, used_at "
        "FROM password_resets");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), row.size());
    CPPUNIT_ASSERT_EQUAL(rapport::sha256Hex(token), row.front().str("token_hash"));
    CPPUNIT_ASSERT_EQUAL(ann_.userId, row.front().str("user_id"));
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), row.front().str("email_lower"));
    CPPUNIT_ASSERT_EQUAL(h_->time.now(), row.front().i64("created_at"));
    CPPUNIT_ASSERT_EQUAL(h_->time.now() + std::int64_t(3600) * 1'000'000,
                         row.front().i64("expires_at"));
    CPPUNIT_ASSERT(row.front().isNull("used_at"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), h_->count("SELECT COUNT(*) AS n FROM password_resets "
                                                    "WHERE token_hash = ?",
                                                    {token}));
  }

  void testResetWorksOnceAndRevokesEveryToken() {
    const std::string other = h_->tokenFor(ann_, ann_.companyId);
    const std::string token = requestToken();
    const Response r = reset(resetBody(token, "ANN@example.com"));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Your password has been reset."), r.message);
    CPPUNIT_ASSERT(!r.data);
    // Every token of the user is revoked, the old password is gone.
    CPPUNIT_ASSERT_EQUAL(401, expectError([&] { h_->identityOf(ann_.token); }).status());
    CPPUNIT_ASSERT_EQUAL(401, expectError([&] { h_->identityOf(other); }).status());
    CPPUNIT_ASSERT_EQUAL(401, expectError([&] { login(kPassword); }).status());
    CPPUNIT_ASSERT_EQUAL(200, login(kNewPassword).status);
    // Single use.
    const auto e =
        expectError([&] { reset(resetBody(token, "ann@example.com", "yet another one")); });
    assertInvalidToken(e);
    CPPUNIT_ASSERT_EQUAL(200, login(kNewPassword).status);
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t(1),
        h_->count("SELECT COUNT(*) AS n FROM password_resets WHERE used_at = ?", {h_->time.now()}));
  }

  void testTokenExpires() {
    const std::string token = requestToken();
    h_->time.advanceSeconds(3600);  // exactly 60 minutes: over
    assertInvalidToken(expectError([&] { reset(resetBody(token, ann_.email)); }));
    CPPUNIT_ASSERT_EQUAL(200, login(kPassword).status);
  }

  void testTokenOfAnotherEmail() {
    const User bob = h_->registerUser("bob@example.com");
    const std::string token = requestToken();
    assertInvalidToken(expectError([&] { reset(resetBody(token, bob.email)); }));
    assertInvalidToken(expectError([&] { reset(resetBody(token, "nobody@example.com")); }));
    // Neither tried reset spent it.
    CPPUNIT_ASSERT_EQUAL(200, reset(resetBody(token, ann_.email)).status);
    CPPUNIT_ASSERT_EQUAL(std::string(), bobPasswordChanged(bob));
  }

  void testNewRequestReplacesEarlierToken() {
    const std::string first = requestToken();
    h_->time.advanceSeconds(61);
    const std::string second = requestToken();
    CPPUNIT_ASSERT(first != second);
    assertInvalidToken(expectError([&] { reset(resetBody(first, ann_.email)); }));
    CPPUNIT_ASSERT_EQUAL(200, reset(resetBody(second, ann_.email)).status);
  }

  // A flood of requests for one user (from many addresses) sends one mail
  // per auth.reset.min_interval (60 s), and the earlier token stays valid.
  void testOneMailPerMinimumInterval() {
    const std::string first = requestToken();
    h_->time.advanceSeconds(59);
    forgot(ann_.email, "198.51.100.2");
    forgot(ann_.email, "198.51.100.3");
    h_->runJob("password-reset");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), h_->mailer.messages().size());
    h_->time.advanceSeconds(1);
    forgot(ann_.email, "198.51.100.4");
    h_->runJob("password-reset");
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), h_->mailer.messages().size());
    assertInvalidToken(expectError([&] { reset(resetBody(first, ann_.email)); }));
  }

  void testEmailChangeKillsToken() {
    const std::string token = requestToken();
    const Response r =
        h_->call("PATCH", "/user/profile", ann_.token,
                 Json::object({{"email", "ann.new@example.com"}, {"current_password", kPassword}}));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    assertInvalidToken(expectError([&] { reset(resetBody(token, "ann@example.com")); }));
    assertInvalidToken(expectError([&] { reset(resetBody(token, "ann.new@example.com")); }));
  }

  void testDisabledAndPasswordlessUsers() {
    // Disabled: no mail (the reset would not let them in).
    h_->db->exec("UPDATE users SET disabled = ? WHERE id = ?", {true, ann_.userId});
    forgot(ann_.email);
    h_->runJob("password-reset");
    CPPUNIT_ASSERT(h_->mailer.messages().empty());
    // A token mailed before the account was disabled stops working.
    h_->db->exec("UPDATE users SET disabled = ? WHERE id = ?", {false, ann_.userId});
    const std::string token = requestToken();
    h_->db->exec("UPDATE users SET disabled = ? WHERE id = ?", {true, ann_.userId});
    assertInvalidToken(expectError([&] { reset(resetBody(token, ann_.email)); }));
    // No password (social login only): the mail is how they set one.
    const User bob = h_->registerUser("bob@example.com");
    h_->db->exec("UPDATE users SET password_hash = NULL WHERE id = ?", {bob.userId});
    forgot(bob.email, "198.51.100.9");
    h_->runJob("password-reset");
    const auto sent = h_->mailer.messages();
    CPPUNIT_ASSERT_EQUAL(std::string("bob@example.com"), sent.back().to);
    CPPUNIT_ASSERT_EQUAL(200, reset(resetBody(tokenIn(sent.back()), bob.email)).status);
    CPPUNIT_ASSERT_EQUAL(
        200, h_->callPublic("POST", "/auth/login",
                            Json::object({{"email", bob.email}, {"password", kNewPassword}}))
                 .status);
  }

  void testForgotValidationAndThrottle() {
    for (const Json& bad : {Json(), Json(""), Json("not-an-email"), Json(12)}) {
      const auto e = expectError([&] {
        forgotBody(Json::object({{"email", bad}}), "203.0.113.1");
      });
      CPPUNIT_ASSERT_EQUAL(422, e.status());
      CPPUNIT_ASSERT(hasFieldError(e, "email", ""));
    }
    // Those four counted too (every request counts): one more is allowed.
    forgot("someone@example.com", "203.0.113.1");
    const auto e = expectError([&] { forgot("someone@example.com", "203.0.113.1"); });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("3600"), retryAfter(e));
    // Other addresses are not affected.
    CPPUNIT_ASSERT_EQUAL(200, forgot("someone@example.com", "203.0.113.2").status);
    // IPv6 clients count per /64: five addresses of one /64 exhaust it.
    for (int i = 1; i <= 5; ++i) {
      forgot("someone@example.com", "2001:db8:1:2::" + std::to_string(i));
    }
    const auto v6 = expectError([&] { forgot("someone@example.com", "2001:db8:1:2:ffff::9"); });
    CPPUNIT_ASSERT_EQUAL(429, v6.status());
    CPPUNIT_ASSERT_EQUAL(200, forgot("someone@example.com", "2001:db8:1:3::1").status);
    // The window slides: the first request leaves it after an hour.
    h_->time.advanceSeconds(3599);
    const auto still = expectError([&] { forgot("someone@example.com", "203.0.113.1"); });
    CPPUNIT_ASSERT_EQUAL(std::string("1"), retryAfter(still));
    h_->time.advanceSeconds(1);
    CPPUNIT_ASSERT_EQUAL(200, forgot("someone@example.com", "203.0.113.1").status);
  }

  void testWrongTokensAreThrottled() {
    const std::string token = requestToken();
    for (int i = 0; i < 10; ++i) {
      assertInvalidToken(expectError(
          [&] { reset(resetBody(rapport::randomToken(32), ann_.email), "203.0.113.7"); }));
    }
    const auto e = expectError([&] { reset(resetBody(token, ann_.email), "203.0.113.7"); });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
    CPPUNIT_ASSERT(!retryAfter(e).empty());
    // Validation failures are not guesses and do not count elsewhere.
    CPPUNIT_ASSERT_EQUAL(200, reset(resetBody(token, ann_.email), "203.0.113.8").status);
  }

  void testResetValidation() {
    const std::string token = requestToken();
    auto e = expectError([&] { reset(Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    for (const char* field : {"token", "email", "password", "password_confirmation"}) {
      CPPUNIT_ASSERT_MESSAGE(field, hasFieldError(e, field, ""));
    }
    e = expectError([&] { reset(resetBody(token, ann_.email, "short")); });
    CPPUNIT_ASSERT(hasFieldError(e, "password", "The password must be at least 8 characters."));
    Json mismatch = resetBody(token, ann_.email);
    mismatch.set("password_confirmation", "something else");
    e = expectError([&] { reset(mismatch); });
    CPPUNIT_ASSERT(hasFieldError(e, "password", "The password confirmation does not match."));
    // None of that spent the token.
    CPPUNIT_ASSERT_EQUAL(200, reset(resetBody(token, ann_.email)).status);
  }

  void testCommonPasswordsRefused() {
    // Reset.
    const std::string token = requestToken();
    auto e = expectError([&] { reset(resetBody(token, ann_.email, "Password123")); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "password", kCommon));
    CPPUNIT_ASSERT(!hasFieldError(e, "password", "The password confirmation does not match."));
    // Register.
    e = expectError([&] {
      h_->callPublic("POST", "/auth/register",
                     Json::object({{"name", "Cy"},
                                   {"email", "cy@example.com"},
                                   {"password", "qwertyuiop"},
                                   {"password_confirmation", "qwertyuiop"},
                                   {"company_name", "Cy Ltd"}}));
    });
    CPPUNIT_ASSERT(hasFieldError(e, "password", kCommon));
    // Change.
    e = expectError([&] {
      h_->call("PATCH", "/user/password", ann_.token,
               Json::object({{"current_password", kPassword},
                             {"password", "ILOVEYOU1"},
                             {"password_confirmation", "ILOVEYOU1"}}));
    });
    CPPUNIT_ASSERT(hasFieldError(e, "password", kCommon));
    CPPUNIT_ASSERT_EQUAL(200, reset(resetBody(token, ann_.email)).status);
  }

  void testPurge() {
    const std::string used = requestToken();
    CPPUNIT_ASSERT_EQUAL(200, reset(resetBody(used, ann_.email)).status);
    const User bob = h_->registerUser("bob@example.com");
    forgot(bob.email, "198.51.100.20");
    h_->runJob("password-reset");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), rows());
    h_->time.advanceSeconds(24 * 3600);  // used a day ago; bob's expired 23 h ago
    h_->runJob("password-reset-purge");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), rows());
    h_->time.advanceSeconds(1);  // used over a day ago
    h_->runJob("password-reset-purge");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), rows());
    h_->time.advanceSeconds(3600);  // bob's expired over a day ago
    h_->runJob("password-reset-purge");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), rows());
  }

  void testEmailChangeNeedsCurrentPassword() {
    const Json change = Json::object({{"email", "ann2@example.com"}});
    auto e = expectError([&] { h_->call("PATCH", "/user/profile", ann_.token, change); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "current_password",
                                 "The current password is required to change the e-mail."));
    Json wrong = change;
    wrong.set("current_password", "not her password");
    e = expectError([&] { h_->call("PATCH", "/user/profile", ann_.token, wrong); });
    CPPUNIT_ASSERT(hasFieldError(e, "current_password", "The current password is incorrect."));
    CPPUNIT_ASSERT_EQUAL(std::string("Ann@Example.com"), profileEmail());
    // The same address in another spelling, and the name alone, need nothing.
    CPPUNIT_ASSERT_EQUAL(200, h_->call("PATCH", "/user/profile", ann_.token,
                                       Json::object({{"email", "ann@EXAMPLE.com"}}))
                                  .status);
    CPPUNIT_ASSERT_EQUAL(
        200,
        h_->call("PATCH", "/user/profile", ann_.token, Json::object({{"name", "Ann Lee"}})).status);
    Json right = change;
    right.set("current_password", kPassword);
    CPPUNIT_ASSERT_EQUAL(200, h_->call("PATCH", "/user/profile", ann_.token, right).status);
    CPPUNIT_ASSERT_EQUAL(std::string("ann2@example.com"), profileEmail());
    // Wrong current passwords count as login failures of her (new) address.
    for (int i = 0; i < 5; ++i) {
      expectError([&] {
        h_->call("PATCH", "/user/profile", ann_.token,
                 Json::object({{"email", "ann3@example.com"}, {"current_password", "nope"}}));
      });
    }
    e = expectError([&] {
      h_->call("PATCH", "/user/profile", ann_.token,
               Json::object({{"email", "ann3@example.com"}, {"current_password", kPassword}}));
    });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("ann2@example.com"), profileEmail());
    // Without a password (social login): 422 on email, whatever is sent.
    const User bob = h_->registerUser("bob@example.com");
    h_->db->exec("UPDATE users SET password_hash = NULL WHERE id = ?", {bob.userId});
    e = expectError([&] {
      h_->call("PATCH", "/user/profile", bob.token,
               Json::object({{"email", "bob2@example.com"}, {"current_password", "anything"}}));
    });
    CPPUNIT_ASSERT(hasFieldError(e, "email",
                                 "This account has no password. Set one with the password reset "
                                 "before changing the e-mail."));
    CPPUNIT_ASSERT_EQUAL(
        200,
        h_->call("PATCH", "/user/profile", bob.token, Json::object({{"name", "Bob B"}})).status);
  }

 private:
  Response forgot(const std::string& email, const std::string& address = "192.0.2.10") {
    return forgotBody(Json::object({{"email", email}}), address);
  }
  Response forgotBody(Json body, const std::string& address) {
    return h_->callPublic("POST", "/auth/forgot-password", std::move(body), address);
  }
  Response reset(Json body, const std::string& address = "192.0.2.10") {
    return h_->callPublic("POST", "/auth/reset-password", std::move(body), address);
  }
  Response login(const std::string& password) {
    return h_->callPublic("POST", "/auth/login",
                          Json::object({{"email", ann_.email}, {"password", password}}),
                          "192.0.2.99");
  }
  // Asks for a reset for Ann, runs the job, returns the mailed token.
  std::string requestToken() {
    const std::size_t before = h_->mailer.messages().size();
    forgot(ann_.email, "192.0.2.50");
    h_->runJob("password-reset");
    const auto sent = h_->mailer.messages();
    CPPUNIT_ASSERT_EQUAL(before + 1, sent.size());
    return tokenIn(sent.back());
  }
  std::int64_t rows() { return h_->count("SELECT COUNT(*) AS n FROM password_resets"); }
  std::string profileEmail() {
    return (*h_->call("GET", "/user/profile", ann_.token).data)["email"].asString();
  }
  // "" when bob's password is still the harness's.
  std::string bobPasswordChanged(const User& bob) {
    const Response r =
        h_->callPublic("POST", "/auth/login",
                       Json::object({{"email", bob.email}, {"password", kPassword}}), "192.0.2.98");
    return r.status == 200 ? "" : "changed";
  }
  static void assertInvalidToken(const rapport::Error& e) {
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "token", kInvalidToken));
    CPPUNIT_ASSERT_EQUAL(kInvalidToken, std::string(e.what()));
  }

  std::unique_ptr<AccountsHarness> h_;
  User ann_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(PasswordResetTest);
