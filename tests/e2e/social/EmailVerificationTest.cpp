// E-mail verification (docs/accounts.md "E-mail verification"; issue 21):
// the mailed single-use token, stored hashed; wrong, used, expired,
// replaced and stale tokens; a change of address clears the proof; a
// password reset by e-mail proves it; nothing is mailed at registration;
// the limits per user and per client address.
#include <cppunit/extensions/HelperMacros.h>

#include <cctype>

#include "e2e/social/SocialSuite.h"
#include "rapport/ids.h"
#include "rapport/validation.h"
#include "support/smtp/Mailbox.h"

using namespace rapport::e2e;
using namespace rapport::e2e::social;

namespace {

std::string verificationText(const Json& value) {
  return value.isString() ? value.asString() : value.dump();
}

std::string verificationFieldMessage(const Json& error, const std::string& field) {
  const Json& messages = error["errors"][field];
  return messages.isArray() && messages.size() == 1 ? verificationText(messages.asArray().front())
                                                    : error.dump();
}

// A message-only answer (no data): the status, then the body.
Json assertMessageOnly(int expected, const HttpResult& result, const CppUnit::SourceLine& line) {
  assertStatus(expected, result, line);
  const Json body = assertJson(result, line);
  if (!body["message"].isString() || body.contains("data"))
    CppUnit::Asserter::fail(CppUnit::Message("a message-only answer", describe(result)), line);
  return body;
}
#define E2E_ASSERT_MESSAGE_ONLY(expected, result) \
  assertMessageOnly((expected), (result), CPPUNIT_SOURCELINE())

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

const std::string kInvalidVerification = "This verification token is invalid or has expired.";

HttpResult askVerification(HttpClient& client, const Account& account) {
  client.setToken(account.token);
  HttpResult result = client.post("/v1/auth/email/verification");
  client.clearToken();
  return result;
}

HttpResult verify(HttpClient& client, const std::string& token) {
  return client.post("/v1/auth/email/verify", Json::object({{"token", token}}));
}

Json profileOf(HttpClient& client, const Account& account) {
  client.setToken(account.token);
  Json profile = E2E_ASSERT_DATA(200, client.get("/v1/user/profile"));
  client.clearToken();
  return profile;
}

}  // namespace

class EmailVerificationTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(EmailVerificationTest);
  CPPUNIT_TEST(testVerifyWithTheMailedToken);
  CPPUNIT_TEST(testWrongExpiredReplacedAndStaleTokens);
  CPPUNIT_TEST(testChangingTheAddressClearsTheProof);
  CPPUNIT_TEST(testResetByEmailProvesTheAddress);
  CPPUNIT_TEST(testLimits);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testVerifyWithTheMailedToken() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "verify");
    CPPUNIT_ASSERT(profileOf(client, account)["email_verified_at"].isNull());
    E2E_ASSERT_ERROR(401, client.post("/v1/auth/email/verification"));
    const Json asked = E2E_ASSERT_MESSAGE_ONLY(200, askVerification(client, account));
    CPPUNIT_ASSERT_EQUAL(std::string("A verification link has been sent to your e-mail address."),
                         verificationText(asked["message"]));
    const auto mails = rapport::test::smtp::waitForMailTo(outboxOf(server), account.email, 1);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), mails.size());  // nothing was mailed at registration
    CPPUNIT_ASSERT_MESSAGE(mails[0].text,
                           mails[0].text.find("Verify your e-mail address") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(mails[0].text, mails[0].text.find("24 hours") != std::string::npos);
    const std::string token = mailedToken(server, account.email);
    // Stored as its SHA-256 only, valid 24 hours, for the address it was mailed to.
    const auto rows = queryDatabase(server.databaseUrl(),
                                    "SELECT expires_at - created_at, email_lower, used_at FROM "
                                    "email_verifications WHERE token_hash = " +
                                        sqlQuote(opensslSha256(token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    CPPUNIT_ASSERT_EQUAL(std::string("86400000000"), rows[0][0]);
    CPPUNIT_ASSERT_EQUAL(rapport::toLower(account.email), rows[0][1]);
    CPPUNIT_ASSERT_EQUAL(std::string(), rows[0][2]);

    const Json done = E2E_ASSERT_MESSAGE_ONLY(200, verify(client, token));
    CPPUNIT_ASSERT_EQUAL(std::string("Your e-mail address has been verified."),
                         verificationText(done["message"]));
    CPPUNIT_ASSERT(profileOf(client, account)["email_verified_at"].isString());
    // Single use; and nothing left to verify.
    CPPUNIT_ASSERT_EQUAL(
        kInvalidVerification,
        verificationFieldMessage(E2E_ASSERT_ERROR(422, verify(client, token)), "token"));
    E2E_ASSERT_ERROR(409, askVerification(client, account));
  }

  void testWrongExpiredReplacedAndStaleTokens() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    Json error = E2E_ASSERT_ERROR(422, client.post("/v1/auth/email/verify", Json::object()));
    CPPUNIT_ASSERT_EQUAL(std::string("The token field is required."),
                         verificationFieldMessage(error, "token"));
    error = E2E_ASSERT_ERROR(422, verify(client, rapport::randomToken(32)));
    CPPUNIT_ASSERT_EQUAL(kInvalidVerification, verificationFieldMessage(error, "token"));

    // Expired (its 24 hours moved in the database).
    const Account account = registerUser(client, "stale");
    E2E_ASSERT_MESSAGE_ONLY(200, askVerification(client, account));
    const std::string first = mailedToken(server, account.email, 1);
    execDatabase(server.databaseUrl(),
                 "UPDATE email_verifications SET expires_at = expires_at - 86400000000 WHERE "
                 "token_hash = " +
                     sqlQuote(opensslSha256(first)));
    E2E_ASSERT_ERROR(422, verify(client, first));
    // Replaced: only the newest mail works.
    E2E_ASSERT_MESSAGE_ONLY(200, askVerification(client, account));
    const std::string second = mailedToken(server, account.email, 2);
    E2E_ASSERT_MESSAGE_ONLY(200, askVerification(client, account));
    const std::string third = mailedToken(server, account.email, 3);
    E2E_ASSERT_ERROR(422, verify(client, second));
    // Stale: the user changed address since it was mailed.
    client.setToken(account.token);
    E2E_ASSERT_DATA(200, client.patch("/v1/user/profile",
                                      Json::object({{"email", uniqueEmail("moved")},
                                                    {"current_password", account.password}})));
    client.clearToken();
    E2E_ASSERT_ERROR(422, verify(client, third));
    CPPUNIT_ASSERT(profileOf(client, account)["email_verified_at"].isNull());
  }

  void testChangingTheAddressClearsTheProof() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "changer");
    verifyEmail(server, account);
    CPPUNIT_ASSERT(profileOf(client, account)["email_verified_at"].isString());
    client.setToken(account.token);
    // The same address in another case keeps the proof.
    Json profile = E2E_ASSERT_DATA(
        200, client.patch("/v1/user/profile", Json::object({{"email", upper(account.email)}})));
    CPPUNIT_ASSERT_MESSAGE(profile.dump(), profile["email_verified_at"].isString());
    // Another address has to be proved again.
    const std::string moved = uniqueEmail("changed");
    profile = E2E_ASSERT_DATA(
        200,
        client.patch("/v1/user/profile",
                     Json::object({{"email", moved}, {"current_password", account.password}})));
    CPPUNIT_ASSERT_MESSAGE(profile.dump(), profile["email_verified_at"].isNull());
    CPPUNIT_ASSERT(profileOf(client, account)["email_verified_at"].isNull());
  }

  void testResetByEmailProvesTheAddress() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Account account = registerUser(client, "resetter");
    E2E_ASSERT_MESSAGE_ONLY(
        200, client.post("/v1/auth/forgot-password", Json::object({{"email", account.email}})));
    const std::string password = "a brand new password 7";
    E2E_ASSERT_MESSAGE_ONLY(200,
                            client.post("/v1/auth/reset-password",
                                        Json::object({{"token", mailedToken(server, account.email)},
                                                      {"email", account.email},
                                                      {"password", password},
                                                      {"password_confirmation", password}})));
    const Json data = E2E_ASSERT_DATA(200, login(client, account.email, password));
    client.setToken(verificationText(data["token"]));
    const Json profile = E2E_ASSERT_DATA(200, client.get("/v1/user/profile"));
    CPPUNIT_ASSERT_MESSAGE(profile.dump(), profile["email_verified_at"].isString());
    // One mail in all: the reset's (registration mails nothing).
    CPPUNIT_ASSERT_EQUAL(
        std::size_t(1),
        rapport::test::smtp::waitForMailTo(outboxOf(server), account.email, 1).size());
  }

  void testLimits() {
    ServerProcess server(generousSettings({{"modules.enabled", ""},
                                           {"auth.email_verification.max_requests", "2"},
                                           {"auth.email_verification.max_attempts", "2"}}));
    HttpClient client(server.port());
    HttpClient elsewhere(server.port(), "127.0.0.1", "127.0.0.2");
    const Account account = registerUser(client, "limited");
    E2E_ASSERT_MESSAGE_ONLY(200, askVerification(client, account));
    E2E_ASSERT_MESSAGE_ONLY(200, askVerification(client, account));
    const HttpResult refused = askVerification(client, account);
    E2E_ASSERT_ERROR(429, refused);
    CPPUNIT_ASSERT_MESSAGE(describe(refused), !refused.header("Retry-After").empty());
    // Per user: another address does not buy more mail to the same inbox.
    E2E_ASSERT_ERROR(429, askVerification(elsewhere, account));
    // Wrong tokens per client address; then even the right one waits.
    E2E_ASSERT_ERROR(422, verify(client, rapport::randomToken(32)));
    E2E_ASSERT_ERROR(422, verify(client, rapport::randomToken(32)));
    E2E_ASSERT_ERROR(429, verify(client, mailedToken(server, account.email, 2)));
    E2E_ASSERT_MESSAGE_ONLY(200, verify(elsewhere, mailedToken(server, account.email, 2)));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(EmailVerificationTest);
