// Password reset through rapportd (decisions §6; API forgot/reset-password):
// the same answer for known and unknown e-mails, the mail in the outbox and
// through a real SMTP server, a token that works once and revokes every
// session, wrong e-mail, expiry, the per-address limit, common passwords,
// the e-mail change's password check, and the argon2 hash upgraded at login.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "e2e/common/Api.h"
#include "e2e/reset/ResetMailReading.h"
#include "rapport/time.h"
#include "support/smtp/SmtpServer.h"

using namespace rapport::e2e;
using rapport::e2e::reset::resetTokenIn;
using rapport::test::smtp::Mail;
using rapport::test::smtp::SmtpServer;

namespace {

const std::string kInvalidToken = "This password reset token is invalid or has expired.";
const std::string kCommon = "This password is too common. Please choose a less common one.";

// Limits out of the way (every request of the suite comes from 127.0.0.1),
// and no pause between two mails to one user.
ServerProcess::Settings resetSettings(ServerProcess::Settings extra = {}) {
  extra.emplace("auth.reset.forgot_max_requests", "10000");
  extra.emplace("auth.reset.max_attempts", "10000");
  extra.emplace("auth.reset.min_interval", "0");
  return generousSettings(std::move(extra));
}

const std::string kResetUrl = "https://app.example.test/reset?token={token}&email={email}";

ServerProcess& resetServer() {
  static ServerProcess server(resetSettings({{"auth.reset_url", kResetUrl}}));
  return server;
}

std::string outboxOf(const ServerProcess& server) {
  return server.workDir() + "/data/outbox";
}

HttpResult forgot(HttpClient& client, const std::string& email) {
  return client.post("/v1/auth/forgot-password", Json::object({{"email", email}}));
}

Json resetBody(const std::string& token, const std::string& email, const std::string& password) {
  return Json::object({{"token", token},
                       {"email", email},
                       {"password", password},
                       {"password_confirmation", password}});
}

bool hasFieldMessage(const Json& error, const std::string& field, const std::string& message) {
  const Json& list = error["errors"][field];
  if (!list.isArray()) return false;
  for (const Json& m : list.asArray()) {
    if (m.isString() && m.asString() == message) return true;
  }
  return false;
}

// The mails addressed to `email` in `dir`, waiting for at least `count`.
std::vector<Mail> mailsTo(const std::string& dir, const std::string& email, std::size_t count) {
  return rapport::test::smtp::waitForMailTo(dir, email, count);
}

std::string passwordHashOf(const ServerProcess& server, const std::string& userId) {
  return queryDatabase(server.databaseUrl(),
                       "SELECT password_hash FROM users WHERE id = " + sqlQuote(userId))
      .at(0)
      .at(0);
}

}  // namespace

class ResetTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ResetTest);
  CPPUNIT_TEST(testForgotAnswersAlikeForKnownAndUnknown);
  CPPUNIT_TEST(testResetOnceRevokesSessionsAndSetsPassword);
  CPPUNIT_TEST(testWrongEmailAndWrongToken);
  CPPUNIT_TEST(testExpiredToken);
  CPPUNIT_TEST(testSixthForgotFromOneAddressIs429);
  CPPUNIT_TEST(testCommonPasswordsRefused);
  CPPUNIT_TEST(testEmailChangeNeedsCurrentPassword);
  CPPUNIT_TEST(testResetMailThroughSmtp);
  CPPUNIT_TEST(testArgon2HashUpgradedAtLogin);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testForgotAnswersAlikeForKnownAndUnknown() {
    HttpClient client(resetServer().port());
    const Account account = registerUser(client, "alike");
    const HttpResult known = forgot(client, account.email);
    const HttpResult unknown = forgot(client, uniqueEmail("nobody"));
    E2E_ASSERT_STATUS(200, known);
    E2E_ASSERT_COMMON_HEADERS(known);
    CPPUNIT_ASSERT_EQUAL(known.status, unknown.status);
    CPPUNIT_ASSERT_EQUAL(known.reason, unknown.reason);
    CPPUNIT_ASSERT_EQUAL(known.body, unknown.body);
    const Json body = E2E_ASSERT_JSON(known);
    CPPUNIT_ASSERT_EQUAL(
        std::string(
            "If an account exists for this e-mail address, a password reset link has been sent to "
            "it."),
        body["message"].asString());
    // Every header alike, but the request id and the rate-limit counters.
    const std::set<std::string> varying = {"X-Request-Id", "X-RateLimit-Remaining",
                                           "X-RateLimit-Reset", "Date"};
    auto comparable = [&](const HttpResult& r) {
      std::map<std::string, std::string> kept;
      for (const auto& [name, value] : r.headers) {
        if (!varying.count(name)) kept[name] = value;
      }
      return kept;
    };
    CPPUNIT_ASSERT(comparable(known) == comparable(unknown));
    // The mail goes to the known address only.
    const std::vector<Mail> mails = mailsTo(outboxOf(resetServer()), account.email, 1);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), mails.size());
    const std::string token = resetTokenIn(mails[0]);
    CPPUNIT_ASSERT_EQUAL(std::size_t(43), token.size());
    CPPUNIT_ASSERT(mails[0].text.find("60 minutes") != std::string::npos);
    // auth.reset_url: the link, with the token and the (encoded) address.
    std::string encoded = account.email;
    encoded.replace(encoded.find('@'), 1, "%40");
    const std::string link = "https://app.example.test/reset?token=" + token + "&email=" + encoded;
    CPPUNIT_ASSERT_MESSAGE(mails[0].text, mails[0].text.find(link) != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(mails[0].html,
                           mails[0].html.find("href=\"" + link.substr(0, 40)) != std::string::npos);
  }

  void testResetOnceRevokesSessionsAndSetsPassword() {
    HttpClient client(resetServer().port());
    const Account account = registerUser(client, "once");
    const Json second = E2E_ASSERT_DATA(200, login(client, account.email, account.password));
    E2E_ASSERT_STATUS(200, forgot(client, account.email));
    const std::string token = resetTokenIn(mailsTo(outboxOf(resetServer()), account.email, 1)[0]);
    // Only its hash is stored.
    const auto rows = queryDatabase(
        resetServer().databaseUrl(),
        "SELECT token_hash FROM password_resets WHERE user_id = " + sqlQuote(account.userId));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    CPPUNIT_ASSERT(rows[0][0] != token && rows[0][0].size() == 64);

    const std::string newPassword = "a fresh reset secret " + randomHex(4);
    const HttpResult done =
        client.post("/v1/auth/reset-password", resetBody(token, account.email, newPassword));
    E2E_ASSERT_STATUS(200, done);
    const Json doneBody = E2E_ASSERT_JSON(done);
    CPPUNIT_ASSERT_EQUAL(std::string("Your password has been reset."),
                         doneBody["message"].asString());
    CPPUNIT_ASSERT(!doneBody.contains("data") || doneBody["data"].isNull());
    // Every earlier token of the user: 401.
    E2E_ASSERT_ERROR(401, client.get("/v1/auth/me", bearer(account.token)));
    E2E_ASSERT_ERROR(401, client.get("/v1/auth/me", bearer(second["token"].asString())));
    E2E_ASSERT_ERROR(401, login(client, account.email, account.password));
    const Json fresh = E2E_ASSERT_DATA(200, login(client, account.email, newPassword));
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(fresh["token"].asString())));
    // Used once: 422 on token.
    const Json reused =
        E2E_ASSERT_ERROR(422, client.post("/v1/auth/reset-password",
                                          resetBody(token, account.email, "another fresh secret")));
    CPPUNIT_ASSERT(hasFieldMessage(reused, "token", kInvalidToken));
    E2E_ASSERT_DATA(200, login(client, account.email, newPassword));
  }

  void testWrongEmailAndWrongToken() {
    HttpClient client(resetServer().port());
    const Account account = registerUser(client, "wrongmail");
    const Account other = registerUser(client, "othermail");
    E2E_ASSERT_STATUS(200, forgot(client, account.email));
    const std::string token = resetTokenIn(mailsTo(outboxOf(resetServer()), account.email, 1)[0]);
    for (const Json& body : {resetBody(token, other.email, "new secret words"),
                             resetBody(token, uniqueEmail("nobody"), "new secret words"),
                             resetBody(token.substr(1) + "A", account.email, "new secret words"),
                             resetBody("not-a-token", account.email, "new secret words")}) {
      const Json error = E2E_ASSERT_ERROR(422, client.post("/v1/auth/reset-password", body));
      CPPUNIT_ASSERT_MESSAGE(error.dump(), hasFieldMessage(error, "token", kInvalidToken));
    }
    // None of those spent it.
    E2E_ASSERT_STATUS(200, client.post("/v1/auth/reset-password",
                                       resetBody(token, account.email, "new secret words")));
  }

  // auth.reset_ttl = 1: once the stored expiry has passed, the token is 422.
  void testExpiredToken() {
    ServerProcess server(resetSettings({{"auth.reset_ttl", "1"}}));
    HttpClient client(server.port());
    const Account account = registerUser(client, "expiring");
    E2E_ASSERT_STATUS(200, forgot(client, account.email));
    const std::string token = resetTokenIn(mailsTo(outboxOf(server), account.email, 1)[0]);
    const std::int64_t expiresAt =
        std::stoll(queryDatabase(server.databaseUrl(),
                                 "SELECT expires_at FROM password_resets WHERE user_id = " +
                                     sqlQuote(account.userId))
                       .at(0)
                       .at(0));
    CPPUNIT_ASSERT(
        waitUntil([&] { return rapport::nowMicros() > expiresAt; }, std::chrono::seconds(5)));
    const Json error =
        E2E_ASSERT_ERROR(422, client.post("/v1/auth/reset-password",
                                          resetBody(token, account.email, "too late a secret")));
    CPPUNIT_ASSERT(hasFieldMessage(error, "token", kInvalidToken));
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
  }

  // Default limit: 5 requests per address per hour, whatever they ask for.
  void testSixthForgotFromOneAddressIs429() {
    ServerProcess server(generousSettings());
    HttpClient client(server.port());
    const Account account = registerUser(client, "sixth");
    for (int i = 0; i < 5; ++i) {
      E2E_ASSERT_STATUS(200, forgot(client, i % 2 ? account.email : uniqueEmail("x")));
    }
    const HttpResult refused = forgot(client, account.email);
    E2E_ASSERT_ERROR(429, refused);
    E2E_ASSERT_COMMON_HEADERS(refused);
    const std::int64_t retryAfter = headerInt(refused, "Retry-After");
    CPPUNIT_ASSERT_MESSAGE(describe(refused), retryAfter > 3500 && retryAfter <= 3600);
    // Another client address is not affected.
    HttpClient elsewhere(server.port(), "127.0.0.1", "127.0.0.2");
    E2E_ASSERT_STATUS(200, forgot(elsewhere, account.email));
  }

  void testCommonPasswordsRefused() {
    HttpClient client(resetServer().port());
    Account fresh;
    fresh.name = "Common";
    fresh.email = uniqueEmail("common");
    fresh.password = "Password123";
    fresh.companyName = "Common Ltd";
    Json error = E2E_ASSERT_ERROR(422, client.post("/v1/auth/register", registrationBody(fresh)));
    CPPUNIT_ASSERT_MESSAGE(error.dump(), hasFieldMessage(error, "password", kCommon));

    const Account account = registerUser(client, "commonchange");
    error =
        E2E_ASSERT_ERROR(422, client.patch("/v1/user/password",
                                           Json::object({{"current_password", account.password},
                                                         {"password", "iloveyou1"},
                                                         {"password_confirmation", "iloveyou1"}}),
                                           bearer(account.token)));
    CPPUNIT_ASSERT(hasFieldMessage(error, "password", kCommon));

    E2E_ASSERT_STATUS(200, forgot(client, account.email));
    const std::string token = resetTokenIn(mailsTo(outboxOf(resetServer()), account.email, 1)[0]);
    error = E2E_ASSERT_ERROR(
        422, client.post("/v1/auth/reset-password", resetBody(token, account.email, "qwertyuiop")));
    CPPUNIT_ASSERT(hasFieldMessage(error, "password", kCommon));
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
  }

  void testEmailChangeNeedsCurrentPassword() {
    HttpClient client(resetServer().port());
    const Account account = registerUser(client, "emailchange");
    const std::string target = uniqueEmail("moved");
    Json error = E2E_ASSERT_ERROR(
        422,
        client.patch("/v1/user/profile", Json::object({{"email", target}}), bearer(account.token)));
    CPPUNIT_ASSERT(hasFieldMessage(error, "current_password",
                                   "The current password is required to change the e-mail."));
    error = E2E_ASSERT_ERROR(
        422, client.patch("/v1/user/profile",
                          Json::object({{"email", target}, {"current_password", "not it at all"}}),
                          bearer(account.token)));
    CPPUNIT_ASSERT(
        hasFieldMessage(error, "current_password", "The current password is incorrect."));
    // Name-only changes need nothing.
    E2E_ASSERT_DATA(200, client.patch("/v1/user/profile", Json::object({{"name", "Renamed"}}),
                                      bearer(account.token)));
    const Json changed = E2E_ASSERT_DATA(
        200, client.patch("/v1/user/profile",
                          Json::object({{"email", target}, {"current_password", account.password}}),
                          bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(target, changed["email"].asString());
    E2E_ASSERT_DATA(200, login(client, target, account.password));
  }

  // mail.smtp.host set: the reset mail reaches a real SMTP server.
  void testResetMailThroughSmtp() {
    SmtpServer smtp;
    ServerProcess server(resetSettings({{"mail.smtp.host", "127.0.0.1"},
                                        {"mail.smtp.port", std::to_string(smtp.port())},
                                        {"mail.smtp.starttls", "off"}}));
    HttpClient client(server.port());
    const Account account = registerUser(client, "smtp");
    E2E_ASSERT_STATUS(200, forgot(client, account.email));
    const std::vector<Mail> mails = mailsTo(smtp.maildir(), account.email, 1);
    const std::string token = resetTokenIn(mails[0]);
    CPPUNIT_ASSERT(rapport::test::smtp::readMailbox(outboxOf(server)).empty());
    E2E_ASSERT_STATUS(200, client.post("/v1/auth/reset-password",
                                       resetBody(token, account.email, "smtp delivered secret")));
    E2E_ASSERT_DATA(200, login(client, account.email, "smtp delivered secret"));
  }

  // Registered at t=2; after a restart with t=3 the first login stores a
  // t=3 hash, and the password still works.
  void testArgon2HashUpgradedAtLogin() {
    std::string databaseUrl;
    std::string workDir;
    Account account;
    std::string before;
    {
      ServerProcess first(generousSettings({{"auth.argon2.iterations", "2"}}));
      HttpClient client(first.port());
      account = registerUser(client, "rehash");
      before = passwordHashOf(first, account.userId);
      databaseUrl = first.databaseUrl();
      workDir = first.workDir();
      CPPUNIT_ASSERT_EQUAL(0, first.stop());
    }
    CPPUNIT_ASSERT_MESSAGE(before, before.find("$m=19456,t=2,p=1$") != std::string::npos);
    ServerProcess second(
        generousSettings({{"database.url", databaseUrl}, {"auth.argon2.iterations", "3"}}), {}, {},
        workDir);
    HttpClient client(second.port());
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
    const std::string after = passwordHashOf(second, account.userId);
    CPPUNIT_ASSERT_MESSAGE(after, after.find("$m=19456,t=3,p=1$") != std::string::npos);
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
    CPPUNIT_ASSERT_EQUAL(after, passwordHashOf(second, account.userId));  // upgraded once
    E2E_ASSERT_ERROR(401, login(client, account.email, "not the password"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ResetTest);
