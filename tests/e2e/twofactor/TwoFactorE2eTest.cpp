// Two-factor login through rapportd (decisions §4; API Two-factor
// validation): enable, confirm, the login challenge in its three variants,
// remember_me, replay, recovery codes, the e-mailed code in the outbox, the
// resend and wrong-code limits, expiry, auth.two_factor_status = 200,
// disable and regenerate; enabling asks for the password, and a mailbox
// alone does not pass both factors (the e-mailed code refused for a day
// after a reset by e-mail, a notice for each sign-in with one). TOTP codes
// come from oathtool.
#include <cppunit/extensions/HelperMacros.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "e2e/common/Api.h"
#include "e2e/reset/ResetMailReading.h"
#include "support/OathTool.h"
#include "support/smtp/Mailbox.h"
#include "support/smtp/SmtpServer.h"

using namespace rapport::e2e;
using rapport::test::oathCode;

namespace {

namespace fs = std::filesystem;

ServerProcess& server() {
  static ServerProcess s(generousSettings());
  return s;
}

struct Enabled {
  Account account;
  std::string secret;
  std::vector<std::string> recoveryCodes;
};

// Registers a user and turns 2FA on with oathtool's current code.
Enabled enable(HttpClient& client, const std::string& label) {
  Enabled e;
  e.account = registerUser(client, label);
  const Json started = E2E_ASSERT_DATA(
      200, client.post("/v1/auth/2fa/enable", Json::object({{"password", e.account.password}}),
                       bearer(e.account.token)));
  e.secret = started["secret"].asString();
  CPPUNIT_ASSERT(std::regex_match(e.secret, std::regex("[A-Z2-7]{32}")));
  // The URI's label is "Rapport:" and the e-mail, percent-encoded.
  std::string email = e.account.email;
  email.replace(email.find('@'), 1, "%40");
  CPPUNIT_ASSERT_EQUAL("otpauth://totp/Rapport:" + email + "?secret=" + e.secret +
                           "&issuer=Rapport&algorithm=SHA1&digits=6&period=30",
                       started["otpauth_uri"].asString());
  const Json confirmed =
      E2E_ASSERT_DATA(200, client.post("/v1/auth/2fa/confirm",
                                       Json::object({{"code", oathCode(e.secret, unixNow())}}),
                                       bearer(e.account.token)));
  for (const Json& c : confirmed["recovery_codes"].asArray())
    e.recoveryCodes.push_back(c.asString());
  CPPUNIT_ASSERT_EQUAL(std::size_t{8}, e.recoveryCodes.size());
  return e;
}

// The next step's code: the current one was taken by the confirmation,
// and one step of drift is accepted.
std::string nextCode(const Enabled& e) {
  return oathCode(e.secret, unixNow() + 30);
}

// Logs in and checks the challenge answer: `status`, the four fields, no token.
std::string challenge(HttpClient& client, const Account& account, bool remember = false,
                      int status = 403) {
  const HttpResult r = login(client, account.email, account.password, remember);
  const Json data = E2E_ASSERT_DATA(status, r);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(r.body, std::size_t{4}, data.size());
  CPPUNIT_ASSERT_EQUAL(true, data["two_factor_required"].asBool());
  CPPUNIT_ASSERT_EQUAL(true, data["pending_2fa"].asBool());
  CPPUNIT_ASSERT_EQUAL(data["challenge_id"].asString(), data["two_factor_token"].asString());
  CPPUNIT_ASSERT(r.body.find("\"token\"") == std::string::npos);
  return data["challenge_id"].asString();
}

void assertLoggedIn(HttpClient& client, const HttpResult& r, const Account& account,
                    std::int64_t expiresIn) {
  const Json data = E2E_ASSERT_DATA(200, r);
  CPPUNIT_ASSERT_EQUAL(std::string("Bearer"), data["token_type"].asString());
  CPPUNIT_ASSERT_EQUAL(expiresIn, data["expires_in"].asInt());
  CPPUNIT_ASSERT_EQUAL(account.userId, data["user"]["id"].asString());
  CPPUNIT_ASSERT_EQUAL(account.companyId, data["user"]["company_id"].asString());
  E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(data["token"].asString())));
}

// The server's outbox (mail.outbox defaults to data/outbox).
std::string outboxOf(const ServerProcess& s) {
  return (fs::path(s.workDir()) / "data" / "outbox").string();
}

// The 6-digit code of the `nth` (from 1) mail to `to` in the mail folder
// `dir`: the one sign-in mail unless said otherwise.
std::string mailedCode(const std::string& dir, const std::string& to, std::size_t nth = 1) {
  const rapport::test::smtp::Mail mail =
      rapport::test::smtp::waitForMailTo(dir, to, nth).at(nth - 1);
  std::smatch match;
  if (!std::regex_search(mail.text, match, std::regex("(?:^|\\s)([0-9]{6})(?=\\s|$)"))) {
    throw std::runtime_error("no 6-digit code in " + mail.file + ":\n" + mail.text);
  }
  return match[1].str();
}

// POST /auth/two-factor/resend for `id`, then the emailed code from `dir`
// completes the login through /auth/two-factor/verify.
void resendAndVerify(HttpClient& client, const Enabled& e, const std::string& id,
                     const std::string& dir) {
  E2E_ASSERT_STATUS(
      200, client.post("/v1/auth/two-factor/resend", Json::object({{"two_factor_token", id}})));
  const std::string code = mailedCode(dir, e.account.email);
  assertLoggedIn(client,
                 client.post("/v1/auth/two-factor/verify",
                             Json::object({{"two_factor_token", id}, {"code", code}})),
                 e.account, 3600);
}

}  // namespace

class TwoFactorE2eTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TwoFactorE2eTest);
  CPPUNIT_TEST(testEnableChallengeAndReplay);
  CPPUNIT_TEST(testVerifyVariantHonoursRememberMe);
  CPPUNIT_TEST(testTwoFaChallengeVariant);
  CPPUNIT_TEST(testRecoveryCodeWorksOnce);
  CPPUNIT_TEST(testResendMailsACodeAndIsLimited);
  CPPUNIT_TEST(testResendThroughSmtp);
  CPPUNIT_TEST(testFiveWrongCodesAnd404s);
  CPPUNIT_TEST(testExpiredChallengeAndStatus200);
  CPPUNIT_TEST(testDisableAndRegenerate);
  CPPUNIT_TEST(testEnableAsksForThePassword);
  CPPUNIT_TEST(testMailedCodeRefusedAfterAResetByMail);
  CPPUNIT_TEST(testMailedCodeSignInMailsANotice);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEnableChallengeAndReplay() {
    HttpClient client(server().port());
    const Enabled e = enable(client, "tfa");
    const Json me = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(e.account.token)));
    CPPUNIT_ASSERT_EQUAL(true, me["two_factor_enabled"].asBool());
    const Json profile =
        E2E_ASSERT_DATA(200, client.get("/v1/user/profile", bearer(e.account.token)));
    CPPUNIT_ASSERT_EQUAL(true, profile["two_factor_enabled"].asBool());
    // Already on: 409.
    E2E_ASSERT_ERROR(
        409, client.post("/v1/auth/2fa/enable", Json::object({{"password", e.account.password}}),
                         bearer(e.account.token)));

    const std::string id = challenge(client, e.account);
    const std::string code = nextCode(e);
    const HttpResult done = client.post("/v1/auth/two-factor/challenge",
                                        Json::object({{"challenge_id", id}, {"code", code}}));
    assertLoggedIn(client, done, e.account, 3600);
    // The challenge is used; the code is spent.
    E2E_ASSERT_ERROR(404, client.post("/v1/auth/two-factor/challenge",
                                      Json::object({{"challenge_id", id}, {"code", code}})));
    const std::string again = challenge(client, e.account);
    const Json replay =
        E2E_ASSERT_ERROR(422, client.post("/v1/auth/two-factor/challenge",
                                          Json::object({{"challenge_id", again}, {"code", code}})));
    CPPUNIT_ASSERT(replay["errors"].contains("code"));
    // Neither code nor recovery code: 422.
    E2E_ASSERT_ERROR(
        422, client.post("/v1/auth/two-factor/challenge", Json::object({{"challenge_id", again}})));
  }

  void testVerifyVariantHonoursRememberMe() {
    HttpClient client(server().port());
    const Enabled e = enable(client, "verify");
    const std::string id = challenge(client, e.account, true);
    const HttpResult done =
        client.post("/v1/auth/two-factor/verify",
                    Json::object({{"two_factor_token", id}, {"code", nextCode(e)}}));
    assertLoggedIn(client, done, e.account, 2592000);
  }

  void testTwoFaChallengeVariant() {
    HttpClient client(server().port());
    const Enabled e = enable(client, "variantc");
    const std::string id = challenge(client, e.account);
    const HttpResult done = client.post(
        "/v1/auth/2fa/challenge", Json::object({{"two_factor_token", id}, {"code", nextCode(e)}}));
    assertLoggedIn(client, done, e.account, 3600);
  }

  void testRecoveryCodeWorksOnce() {
    HttpClient client(server().port());
    const Enabled e = enable(client, "recovery");
    const std::string first = challenge(client, e.account);
    assertLoggedIn(
        client,
        client.post("/v1/auth/2fa/challenge",
                    Json::object({{"challenge_id", first}, {"recovery_code", e.recoveryCodes[0]}})),
        e.account, 3600);
    const std::string second = challenge(client, e.account);
    const Json reused = E2E_ASSERT_ERROR(
        422, client.post(
                 "/v1/auth/two-factor/challenge",
                 Json::object({{"challenge_id", second}, {"recovery_code", e.recoveryCodes[0]}})));
    CPPUNIT_ASSERT(reused["errors"].contains("recovery_code"));
    assertLoggedIn(client,
                   client.post("/v1/auth/two-factor/challenge",
                               Json::object({{"challenge_id", second},
                                             {"recovery_code", e.recoveryCodes[1]}})),
                   e.account, 3600);
  }

  void testResendMailsACodeAndIsLimited() {
    HttpClient client(server().port());
    const Enabled e = enable(client, "resend");
    const std::string id = challenge(client, e.account);
    E2E_ASSERT_ERROR(422, client.post("/v1/auth/two-factor/resend", Json::object()));
    E2E_ASSERT_ERROR(404, client.post("/v1/auth/two-factor/resend",
                                      Json::object({{"two_factor_token", "tfa_unknown"}})));
    // The first resend mails a code that logs in (the outbox is written by
    // the mailer's thread); a second one within 30 s: 429 with Retry-After.
    const std::string again = challenge(client, e.account);
    resendAndVerify(client, e, again, outboxOf(server()));
    E2E_ASSERT_STATUS(
        200, client.post("/v1/auth/two-factor/resend", Json::object({{"two_factor_token", id}})));
    const HttpResult soon =
        client.post("/v1/auth/two-factor/resend", Json::object({{"two_factor_token", id}}));
    E2E_ASSERT_ERROR(429, soon);
    const std::int64_t wait = headerInt(soon, "Retry-After");
    CPPUNIT_ASSERT(wait >= 1 && wait <= 30);
  }

  // mail.smtp.host set: the code reaches a real SMTP server, over STARTTLS
  // with AUTH, and nothing is written to the outbox.
  void testResendThroughSmtp() {
    using rapport::test::smtp::SmtpServer;
    SmtpServer smtp(SmtpServer::Options().withRequiredStartTls().withAuth("mailer:s3cret-pass"));
    ServerProcess::Settings settings = generousSettings();
    settings["mail.smtp.host"] = "127.0.0.1";
    settings["mail.smtp.port"] = std::to_string(smtp.port());
    settings["mail.smtp.starttls"] = "required";
    settings["mail.smtp.username"] = "mailer";
    settings["mail.smtp.password"] = "s3cret-pass";
    settings["mail.smtp.ca_file"] = SmtpServer::certificates().caFile;
    ServerProcess smtpServer(settings);
    HttpClient client(smtpServer.port());
    const Enabled e = enable(client, "smtp");
    resendAndVerify(client, e, challenge(client, e.account), smtp.maildir());
    const auto received = smtp.waitForMessages(1);
    CPPUNIT_ASSERT(received[0].tls);
    CPPUNIT_ASSERT_EQUAL(std::string("mailer"), received[0].authUser);
    CPPUNIT_ASSERT(rapport::test::smtp::readMailbox(outboxOf(smtpServer)).empty());
  }

  void testFiveWrongCodesAnd404s() {
    HttpClient client(server().port());
    const Enabled e = enable(client, "wrong");
    E2E_ASSERT_ERROR(404,
                     client.post("/v1/auth/two-factor/challenge",
                                 Json::object({{"challenge_id", "tfa_nope"}, {"code", "123456"}})));
    const std::string id = challenge(client, e.account);
    const std::string good = nextCode(e);
    const std::string wrong = good == "000000" ? "111111" : "000000";
    const Json body = Json::object({{"challenge_id", id}, {"code", wrong}});
    for (int i = 0; i < 4; ++i)
      E2E_ASSERT_ERROR(422, client.post("/v1/auth/two-factor/challenge", body));
    const HttpResult fifth = client.post("/v1/auth/two-factor/challenge", body);
    E2E_ASSERT_ERROR(429, fifth);
    CPPUNIT_ASSERT(headerInt(fifth, "Retry-After") >= 1);
    E2E_ASSERT_ERROR(429, client.post("/v1/auth/two-factor/challenge",
                                      Json::object({{"challenge_id", id}, {"code", good}})));
  }

  void testExpiredChallengeAndStatus200() {
    ServerProcess s(generousSettings(ServerProcess::Settings{{"auth.two_factor.challenge_ttl", "1"},
                                                             {"auth.two_factor_status", "200"}}));
    HttpClient client(s.port());
    const Enabled e = enable(client, "expiry");
    const std::string id = challenge(client, e.account, false, 200);
    // Poll the resend (429 while the challenge lives, no code spent) until
    // the challenge is gone.
    HttpResult last;
    CPPUNIT_ASSERT(waitUntil(
        [&] {
          last =
              client.post("/v1/auth/two-factor/resend", Json::object({{"two_factor_token", id}}));
          return last.status == 404;
        },
        std::chrono::seconds(10)));
    E2E_ASSERT_ERROR(404, last);
    E2E_ASSERT_ERROR(404, client.post("/v1/auth/two-factor/challenge",
                                      Json::object({{"challenge_id", id}, {"code", nextCode(e)}})));
  }

  void testDisableAndRegenerate() {
    HttpClient client(server().port());
    const Enabled e = enable(client, "disable");
    const Headers auth = bearer(e.account.token);
    const HttpResult codes = client.post("/v1/auth/2fa/recovery-codes",
                                         Json::object({{"password", e.account.password}}), auth);
    const Json fresh = E2E_ASSERT_DATA(200, codes);
    CPPUNIT_ASSERT_EQUAL(std::size_t{8}, fresh["recovery_codes"].size());
    const Json wrong = E2E_ASSERT_ERROR(
        422, client.send("DELETE", "/v1/auth/2fa",
                         Json::object({{"password", "not-my-password"}}).dump(), auth));
    CPPUNIT_ASSERT(wrong["errors"].contains("password"));
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", auth));
    const HttpResult off = client.send(
        "DELETE", "/v1/auth/2fa", Json::object({{"password", e.account.password}}).dump(), auth);
    E2E_ASSERT_STATUS(200, off);
    CPPUNIT_ASSERT_EQUAL(
        false,
        E2E_ASSERT_DATA(200, client.get("/v1/auth/me", auth))["two_factor_enabled"].asBool());
    // Off: 409 for disable and regenerate; login gives a token again.
    E2E_ASSERT_ERROR(409,
                     client.send("DELETE", "/v1/auth/2fa",
                                 Json::object({{"password", e.account.password}}).dump(), auth));
    E2E_ASSERT_ERROR(409, client.post("/v1/auth/2fa/recovery-codes",
                                      Json::object({{"password", e.account.password}}), auth));
    const Json token = E2E_ASSERT_DATA(200, login(client, e.account.email, e.account.password));
    CPPUNIT_ASSERT(token["token"].isString());
    // Confirm without enable first: 409.
    E2E_ASSERT_ERROR(409,
                     client.post("/v1/auth/2fa/confirm", Json::object({{"code", "123456"}}), auth));
  }

  // Issue 21: a token copied long after its sign-in cannot bind the account
  // to its holder's authenticator without the password.
  void testEnableAsksForThePassword() {
    HttpClient client(server().port());
    const Account account = registerUser(client, "enablepw");
    const Headers auth = bearer(account.token);
    // A password sent is checked even on a fresh sign-in (an older session
    // must send it: unit.twofactor SetupRoutesTest, with a clock).
    const Json wrong = E2E_ASSERT_ERROR(
        422,
        client.post("/v1/auth/2fa/enable", Json::object({{"password", "not-my-password"}}), auth));
    CPPUNIT_ASSERT(wrong["errors"].contains("password"));
    const auto rows = queryDatabase(
        server().databaseUrl(),
        "SELECT COUNT(*) FROM two_factor_secrets WHERE user_id = " + sqlQuote(account.userId));
    CPPUNIT_ASSERT_EQUAL(std::string("0"), rows.at(0).at(0));
    E2E_ASSERT_DATA(200, client.post("/v1/auth/2fa/enable",
                                     Json::object({{"password", account.password}}), auth));
    // Decisions §4's enable has no body: a sign-in of the last 10 minutes
    // is the proof of presence.
    const Account fresh = registerUser(client, "enablefresh");
    E2E_ASSERT_DATA(200, client.post("/v1/auth/2fa/enable", Json::object(), bearer(fresh.token)));
  }

  // Decisions §4 (issue 21): whoever reads the mailbox can reset the
  // password and read an e-mailed code. For a day after a reset by e-mail
  // the e-mailed code is refused; the authenticator app still works.
  void testMailedCodeRefusedAfterAResetByMail() {
    HttpClient client(server().port());
    Enabled e = enable(client, "mailbox");
    const std::string dir = outboxOf(server());
    E2E_ASSERT_STATUS(
        200, client.post("/v1/auth/forgot-password", Json::object({{"email", e.account.email}})));
    const std::string token = rapport::e2e::reset::resetTokenIn(
        rapport::test::smtp::waitForMailTo(dir, e.account.email, 1).at(0));
    e.account.password = "a password set through the mailbox";
    E2E_ASSERT_STATUS(200,
                      client.post("/v1/auth/reset-password",
                                  Json::object({{"token", token},
                                                {"email", e.account.email},
                                                {"password", e.account.password},
                                                {"password_confirmation", e.account.password}})));
    const std::string id = challenge(client, e.account);
    E2E_ASSERT_STATUS(
        200, client.post("/v1/auth/two-factor/resend", Json::object({{"two_factor_token", id}})));
    const std::string code = mailedCode(dir, e.account.email, 2);
    for (const char* path : {"/v1/auth/two-factor/verify", "/v1/auth/2fa/challenge"}) {
      const Json refused = E2E_ASSERT_ERROR(
          422, client.post(path, Json::object({{"two_factor_token", id}, {"code", code}})));
      CPPUNIT_ASSERT_EQUAL(std::string("Use your authenticator app or a recovery code."),
                           refused["errors"]["code"].asArray().at(0).asString());
    }
    // oathtool's code passes, on the same challenge.
    assertLoggedIn(client,
                   client.post("/v1/auth/two-factor/verify",
                               Json::object({{"two_factor_token", id}, {"code", nextCode(e)}})),
                   e.account, 3600);
  }

  // Without a reset the e-mailed code signs in, and the user is told.
  void testMailedCodeSignInMailsANotice() {
    HttpClient client(server().port());
    const Enabled e = enable(client, "notice");
    const std::string dir = outboxOf(server());
    resendAndVerify(client, e, challenge(client, e.account), dir);
    const auto mails = rapport::test::smtp::waitForMailTo(dir, e.account.email, 2);
    // The text is wrapped: compare it on one line.
    const std::string notice = std::regex_replace(mails.at(1).text, std::regex("\\s+"), " ");
    CPPUNIT_ASSERT_MESSAGE(notice,
                           notice.find("with a code sent to this address") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(notice, notice.find("from 127.0.0.1") != std::string::npos);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TwoFactorE2eTest);
