// Social login under abuse (issue 21, docs/security.md "Social login"):
// pre-hijacking an account by registering the victim's address first, an
// account made from an address the provider never verified, a provider
// identity that outlives a password reset, and a state replayed by another
// client. Each test fails against the code before issue 21.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/social/SocialSuite.h"
#include "rapport/ids.h"
#include "support/smtp/Mailbox.h"

using namespace rapport::e2e;
using namespace rapport::e2e::social;

namespace {

std::string hijackText(const Json& value) {
  return value.isString() ? value.asString() : value.dump();
}

// The single message of a 422 on `field`.
std::string hijackFieldMessage(const Json& error, const std::string& field) {
  const Json& messages = error["errors"][field];
  return messages.isArray() && messages.size() == 1 ? hijackText(messages.asArray().front())
                                                    : error.dump();
}

const std::string kAccountUnverified =
    "An account with this e-mail address already exists, but its e-mail address has not been "
    "verified, so it cannot be linked to this sign-in. Sign in with your password and verify "
    "your e-mail address, or reset your password; then sign in with this provider again.";
const std::string kNewUnverified =
    "The identity provider has not verified this e-mail address, so no account can be created "
    "from it. Verify the address with the provider, or register with a password.";
const std::string kStateRefused = "The state is invalid or has expired.";

// The value of the binding cookie set by a redirect answer.
std::string bindingOf(const HttpResult& redirect) {
  const std::string cookie = redirect.header("Set-Cookie");
  const std::string prefix = "rapport_social_binding=";
  if (cookie.rfind(prefix, 0) != 0)
    throw std::runtime_error("no binding cookie: " + describe(redirect));
  return cookie.substr(prefix.size(), cookie.find(';') - prefix.size());
}

// The mail's text on one line (compose() wraps it at 72 columns).
std::string flattened(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::string out;
  for (char c : text) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

Headers withCookie(const std::string& binding) {
  return Headers{{"Cookie", "theme=dark; rapport_social_binding=" + binding}};
}

// POST /v1/auth/reset-password for `email` with the token of its newest mail.
HttpResult resetWithMailedToken(const ServerProcess& server, const std::string& email,
                                std::size_t mailCount, const std::string& password,
                                std::optional<bool> removeIdentities = std::nullopt) {
  HttpClient client(server.port());
  E2E_ASSERT_STATUS(200, client.post("/v1/auth/forgot-password", Json::object({{"email", email}})));
  Json body = Json::object({{"token", mailedToken(server, email, mailCount)},
                            {"email", email},
                            {"password", password},
                            {"password_confirmation", password}});
  if (removeIdentities) body.set("remove_identities", *removeIdentities);
  return client.post("/v1/auth/reset-password", body);
}

}  // namespace

class SocialHijackTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SocialHijackTest);
  CPPUNIT_TEST(testPreHijackIsRefusedUntilTheOwnerProvesTheAddress);
  CPPUNIT_TEST(testUnverifiedProviderEmailCreatesNoAccount);
  CPPUNIT_TEST(testSignUpByAVerifiedProviderEmailIsVerified);
  CPPUNIT_TEST(testResetNamesAndRemovesLinkedIdentities);
  CPPUNIT_TEST(testUserListsAndUnlinksIdentities);
  CPPUNIT_TEST(testStateFromAnotherClientIsRefused);
  CPPUNIT_TEST(testBindingCookieDecidesWhenSent);
  CPPUNIT_TEST(testClientAddressBehindATrustedProxy);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPreHijackIsRefusedUntilTheOwnerProvesTheAddress() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    // The attacker registers the victim's address with a password of theirs
    // (they cannot read the victim's mail, so they never verify it).
    const Account attacker = registerUser(client, "victim");
    // The victim, whose Google account has the address verified, signs in
    // with Google: neither variant links nor logs in.
    const Json google = newProviderAccount("google", true, attacker.email);
    Json error = E2E_ASSERT_ERROR(409, loginVariantA(client, "google", hijackText(google["id"])));
    CPPUNIT_ASSERT_EQUAL(kAccountUnverified, hijackText(error["message"]));
    const Started started = startLogin(client, "google");
    error = E2E_ASSERT_ERROR(
        409,
        getCallback(client, "google", codeFor(started, hijackText(google["id"])), started.state));
    CPPUNIT_ASSERT_EQUAL(kAccountUnverified, hijackText(error["message"]));
    CPPUNIT_ASSERT(linkedProviders(server, attacker.userId).empty());
    CPPUNIT_ASSERT_EQUAL(attacker.userId, usersWithEmail(server, attacker.email));

    // The victim takes the address back with a password reset (mailed to
    // them): that proves the address and ends the attacker's sessions and
    // password. Then Google links to the account they now own alone.
    E2E_ASSERT_STATUS(200, resetWithMailedToken(server, attacker.email, 1, "victim's own pass 1"));
    E2E_ASSERT_ERROR(401, login(client, attacker.email, attacker.password));
    client.setToken(attacker.token);
    E2E_ASSERT_ERROR(401, client.get("/v1/auth/me"));
    client.clearToken();
    const Json data =
        E2E_ASSERT_DATA(200, loginVariantA(client, "google", hijackText(google["id"])));
    CPPUNIT_ASSERT_EQUAL(attacker.userId, hijackText(data["user"]["id"]));
    CPPUNIT_ASSERT_EQUAL(std::string("google"), linkedProviders(server, attacker.userId));
  }

  void testUnverifiedProviderEmailCreatesNoAccount() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    for (const char* provider : {"google", "github", "microsoft"}) {
      const Json account = newProviderAccount(provider, false);
      const Json error =
          E2E_ASSERT_ERROR(422, loginVariantA(client, provider, hijackText(account["id"])));
      CPPUNIT_ASSERT_EQUAL(kNewUnverified, hijackText(error["message"]));
      const Started started = startLogin(client, provider);
      E2E_ASSERT_ERROR(422,
                       getCallback(client, provider, codeFor(started, hijackText(account["id"])),
                                   started.state));
      CPPUNIT_ASSERT(usersWithEmail(server, hijackText(account["email"])).empty());
      CPPUNIT_ASSERT(
          queryDatabase(server.databaseUrl(),
                        "SELECT 1 FROM social_identities WHERE provider = " + sqlQuote(provider) +
                            " AND subject = " + sqlQuote(hijackText(account["id"])))
              .empty());
    }
  }

  void testSignUpByAVerifiedProviderEmailIsVerified() {
    // The provider vouched for the address: the new account has it proved,
    // so a second provider with the same verified address links to it.
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json google = newProviderAccount("google");
    const Json data =
        E2E_ASSERT_DATA(200, loginVariantA(client, "google", hijackText(google["id"])));
    client.setToken(hijackText(data["token"]));
    const Json profile = E2E_ASSERT_DATA(200, client.get("/v1/user/profile"));
    CPPUNIT_ASSERT_MESSAGE(profile.dump(), profile["email_verified_at"].isString());
    client.clearToken();
    const Json github = newProviderAccount("github", true, hijackText(google["email"]));
    const Json linked =
        E2E_ASSERT_DATA(200, loginVariantB(client, "github", hijackText(github["id"])));
    CPPUNIT_ASSERT_EQUAL(hijackText(data["user"]["id"]), hijackText(linked["user"]["id"]));
    CPPUNIT_ASSERT_EQUAL(std::string("github,google"),
                         linkedProviders(server, hijackText(data["user"]["id"])));
  }

  void testResetNamesAndRemovesLinkedIdentities() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Account owner = registerUser(client, "owner");
    verifyEmail(server, owner);
    // Two identities linked while they carried the owner's verified address;
    // then one moves to another address at the provider: its subject still
    // signs into the owner's account.
    Json google = newProviderAccount("google", true, owner.email);
    const Json github = newProviderAccount("github", true, owner.email);
    E2E_ASSERT_DATA(200, loginVariantA(client, "google", hijackText(google["id"])));
    E2E_ASSERT_DATA(200, loginVariantA(client, "github", hijackText(github["id"])));
    google.set("email", uniqueEmail("elsewhere"));
    IdentityProvider::instance().putAccount(google);
    Json data = E2E_ASSERT_DATA(200, loginVariantA(client, "google", hijackText(google["id"])));
    CPPUNIT_ASSERT_EQUAL(owner.userId, hijackText(data["user"]["id"]));

    // The reset mail names them. A reset without the flag keeps them.
    E2E_ASSERT_STATUS(200, resetWithMailedToken(server, owner.email, 2, "first new password 1"));
    const auto mails = rapport::test::smtp::waitForMailTo(outboxOf(server), owner.email, 2);
    CPPUNIT_ASSERT_MESSAGE(mails.at(1).text,
                           flattened(mails.at(1).text)
                                   .find("This account can also be signed into with GitHub and "
                                         "Google.") != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::string("github,google"), linkedProviders(server, owner.userId));

    // remove_identities: true unlinks both in the reset.
    E2E_ASSERT_STATUS(200,
                      resetWithMailedToken(server, owner.email, 3, "second new password 2", true));
    CPPUNIT_ASSERT(linkedProviders(server, owner.userId).empty());
    // The moved Google subject no longer reaches the owner: its verified
    // address is a new account's.
    data = E2E_ASSERT_DATA(200, loginVariantA(client, "google", hijackText(google["id"])));
    CPPUNIT_ASSERT(hijackText(data["user"]["id"]) != owner.userId);
    E2E_ASSERT_DATA(200, login(client, owner.email, "second new password 2"));
  }

  void testUserListsAndUnlinksIdentities() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    // A social-only account (no password) with two providers.
    const Json google = newProviderAccount("google");
    const Json github = newProviderAccount("github", true, hijackText(google["email"]));
    const Json data =
        E2E_ASSERT_DATA(200, loginVariantA(client, "google", hijackText(google["id"])));
    E2E_ASSERT_DATA(200, loginVariantA(client, "github", hijackText(github["id"])));
    client.setToken(hijackText(data["token"]));
    const Json list = E2E_ASSERT_DATA(200, client.get("/v1/user/identities"));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(list.dump(), std::size_t(2), list.size());
    CPPUNIT_ASSERT_EQUAL(std::string("github"), hijackText(list.asArray()[0]["provider"]));
    CPPUNIT_ASSERT_EQUAL(std::string("google"), hijackText(list.asArray()[1]["provider"]));
    CPPUNIT_ASSERT_EQUAL(hijackText(google["email"]), hijackText(list.asArray()[1]["email"]));
    CPPUNIT_ASSERT(list.asArray()[1]["created_at"].isString());
    E2E_ASSERT_ERROR(404, client.del("/v1/user/identities/microsoft"));
    E2E_ASSERT_STATUS(200, client.del("/v1/user/identities/github"));
    // The last way into an account without a password stays.
    const Json error = E2E_ASSERT_ERROR(409, client.del("/v1/user/identities/google"));
    CPPUNIT_ASSERT(hijackText(error["message"]).find("password reset") != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::string("google"),
                         linkedProviders(server, hijackText(data["user"]["id"])));
    // Another user's list is their own; without a token, 401.
    const Account other = registerUser(client, "other");
    client.setToken(other.token);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0),
                         E2E_ASSERT_DATA(200, client.get("/v1/user/identities")).size());
    client.clearToken();
    E2E_ASSERT_ERROR(401, client.get("/v1/user/identities"));
  }

  void testStateFromAnotherClientIsRefused() {
    // An API client that keeps no cookies: the callback must come from the
    // address that asked for the state.
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    HttpClient elsewhere(server.port(), "127.0.0.1", "127.0.0.2");
    const Json account = newProviderAccount("google");
    for (const bool variantB : {false, true}) {
      const Started started = startLogin(client, "google");
      const std::string code = codeFor(started, hijackText(account["id"]));
      const HttpResult stolen = variantB ? getCallback(elsewhere, "google", code, started.state)
                                         : postCallback(elsewhere, "google", code, started.state);
      const Json error = E2E_ASSERT_ERROR(422, stolen);
      CPPUNIT_ASSERT_EQUAL(kStateRefused, hijackFieldMessage(error, "state"));
      // The state is still its client's.
      E2E_ASSERT_DATA(200, variantB ? getCallback(client, "google", code, started.state)
                                    : postCallback(client, "google", code, started.state));
    }
    // The provider's ?error= from another client consumes nothing either.
    const Started started = startLogin(client, "google");
    E2E_ASSERT_ERROR(401, elsewhere.get("/v1/auth/social/google/callback?error=access_denied&"
                                        "state=" +
                                        started.state));
    E2E_ASSERT_DATA(200, postCallback(client, "google", codeFor(started, hijackText(account["id"])),
                                      started.state));
  }

  void testBindingCookieDecidesWhenSent() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    HttpClient elsewhere(server.port(), "127.0.0.1", "127.0.0.2");
    const Json account = newProviderAccount("google");
    const HttpResult redirect = client.get("/v1/auth/social/google/redirect");
    const Json data = E2E_ASSERT_DATA(200, redirect);
    const std::string cookie = redirect.header("Set-Cookie");
    CPPUNIT_ASSERT_MESSAGE(cookie, cookie.find("; Max-Age=600") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(cookie, cookie.find("; Path=/v1/auth/social") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(cookie, cookie.find("; HttpOnly") != std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(cookie, cookie.find("; SameSite=Lax") != std::string::npos);
    // Plain http on loopback: not Secure (a developer's machine).
    CPPUNIT_ASSERT_MESSAGE(cookie, cookie.find("Secure") == std::string::npos);
    const std::string binding = bindingOf(redirect);
    CPPUNIT_ASSERT_EQUAL(std::size_t(43), binding.size());
    // Stored hashed with the state, never in clear.
    const std::string state = hijackText(data["state"]);
    CPPUNIT_ASSERT_EQUAL(
        std::size_t(1), queryDatabase(server.databaseUrl(),
                                      "SELECT 1 FROM social_states WHERE state_hash = " +
                                          sqlQuote(opensslSha256(state)) +
                                          " AND binding_hash = " + sqlQuote(opensslSha256(binding)))
                            .size());
    const std::string code =
        codeFor(Started{state, hijackText(data["authorization_url"])}, hijackText(account["id"]));
    // From the same address, a cookie that is not the state's: refused.
    const Json error =
        E2E_ASSERT_ERROR(422, client.post("/v1/auth/social/google/callback",
                                          Json::object({{"code", code}, {"state", state}}),
                                          withCookie(rapport::randomToken(32))));
    CPPUNIT_ASSERT_EQUAL(kStateRefused, hijackFieldMessage(error, "state"));
    // The right cookie from another address (the browser changed network):
    // accepted.
    E2E_ASSERT_DATA(
        200, elsewhere.post("/v1/auth/social/google/callback",
                            Json::object({{"code", code}, {"state", state}}), withCookie(binding)));
    // Behind a TLS proxy the cookie is Secure.
    const HttpResult behindTls =
        client.get("/v1/auth/social/google/redirect", Headers{{"X-Forwarded-Proto", "https"}});
    CPPUNIT_ASSERT_MESSAGE(behindTls.header("Set-Cookie"),
                           behindTls.header("Set-Cookie").find("; Secure") != std::string::npos);
  }

  void testClientAddressBehindATrustedProxy() {
    // Behind a trusted proxy the client is the one X-Forwarded-For names.
    ServerProcess server(socialSettings({{"server.trusted_proxies", "127.0.0.1"}}));
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const Headers alice{{"X-Forwarded-For", "198.51.100.7"}};
    const Headers mallory{{"X-Forwarded-For", "203.0.113.9"}};
    const HttpResult redirect = client.get("/v1/auth/social/google/redirect", alice);
    const Json data = E2E_ASSERT_DATA(200, redirect);
    // A public client address: the cookie is Secure.
    CPPUNIT_ASSERT_MESSAGE(redirect.header("Set-Cookie"),
                           redirect.header("Set-Cookie").find("; Secure") != std::string::npos);
    const std::string state = hijackText(data["state"]);
    const Json body =
        Json::object({{"code", codeFor(Started{state, hijackText(data["authorization_url"])},
                                       hijackText(account["id"]))},
                      {"state", state}});
    E2E_ASSERT_ERROR(422, client.post("/v1/auth/social/google/callback", body, mallory));
    E2E_ASSERT_DATA(200, client.post("/v1/auth/social/google/callback", body, alice));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SocialHijackTest);
