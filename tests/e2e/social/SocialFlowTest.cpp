// Social login through a real OpenID Connect provider (API "Social login"
// variants A and B; decisions §3 token object, §5): the redirect answer,
// both variants end to end, new users with their company, linking by
// verified e-mail, matching by subject, GitHub's user shape, both client
// authentication methods, the two-factor challenge, and what is stored.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/auth/AuthSuite.h"
#include "e2e/social/SocialSuite.h"
#include "rapport/ids.h"

using namespace rapport::e2e;
using namespace rapport::e2e::social;

namespace {

std::string str(const Json& value) {
  return value.isString() ? value.asString() : value.dump();
}

// The token object with user of a social login (decisions §3), for `email`.
Json assertLoggedIn(const HttpResult& result, const std::string& email,
                    const CppUnit::SourceLine& line) {
  const Json data = assertData(200, result, line);
  assertTokenObject(data, 3600, line);
  const Json& user = data["user"];
  if (!rapport::hasPrefix(str(user["id"]), "user_") || str(user["email"]) != email ||
      !rapport::hasPrefix(str(user["company_id"]), "comp_") || str(user["name"]).empty()) {
    CppUnit::Asserter::fail(CppUnit::Message("token user for " + email, data.dump()), line);
  }
  return data;
}
#define ASSERT_LOGGED_IN(result, email) assertLoggedIn((result), (email), CPPUNIT_SOURCELINE())

}  // namespace

class SocialFlowTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SocialFlowTest);
  CPPUNIT_TEST(testRedirectAnswer);
  CPPUNIT_TEST(testRedirectUriFromTheAllowList);
  CPPUNIT_TEST(testVariantACreatesUserWithCompany);
  CPPUNIT_TEST(testVariantB);
  CPPUNIT_TEST(testSecretsAreStoredHashedOrSealed);
  CPPUNIT_TEST(testLinksVerifiedEmailToPasswordUser);
  CPPUNIT_TEST(testSecondLoginMatchedBySubjectAfterEmailChange);
  CPPUNIT_TEST(testGitHubUserAndVerifiedPrimaryEmail);
  CPPUNIT_TEST(testMicrosoftWithClientSecretBasic);
  CPPUNIT_TEST(testTwoFactorAccountGetsTheChallenge);
  CPPUNIT_TEST(testDisabledAccountIs403);
  CPPUNIT_TEST(testNothingSecretInTheLog);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRedirectAnswer() {
    HttpClient client(socialServer().port());
    const HttpResult result = client.get("/v1/auth/social/google/redirect");
    const Json data = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    const std::string url = str(data["authorization_url"]);
    CPPUNIT_ASSERT_EQUAL(url, str(data["redirect_url"]));
    CPPUNIT_ASSERT_EQUAL(
        0, static_cast<int>(url.rfind(IdentityProvider::instance().url("/auth?"), 0)));
    const std::string state = str(data["state"]);
    CPPUNIT_ASSERT_EQUAL(std::size_t(43), state.size());  // 256 bits, base64url
    const auto query = queryOf(url);
    CPPUNIT_ASSERT_EQUAL(std::string("rapport-google"), query.at("client_id"));
    CPPUNIT_ASSERT_EQUAL(std::string(kCallback), query.at("redirect_uri"));  // the first entry
    CPPUNIT_ASSERT_EQUAL(std::string("code"), query.at("response_type"));
    CPPUNIT_ASSERT_EQUAL(std::string("openid email profile"), query.at("scope"));
    CPPUNIT_ASSERT_EQUAL(state, query.at("state"));
    CPPUNIT_ASSERT_EQUAL(std::string("S256"), query.at("code_challenge_method"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(43), query.at("code_challenge").size());
    // GitHub asks for its own scopes (the default of social.github.scope).
    const Started github = startLogin(client, "github");
    CPPUNIT_ASSERT_EQUAL(std::string("read:user user:email"),
                         queryOf(github.authorizationUrl).at("scope"));
    // Every redirect makes a new state and challenge.
    const Started again = startLogin(client, "google");
    CPPUNIT_ASSERT(again.state != state);
    CPPUNIT_ASSERT(queryOf(again.authorizationUrl).at("code_challenge") !=
                   query.at("code_challenge"));
  }

  void testRedirectUriFromTheAllowList() {
    HttpClient client(socialServer().port());
    const Json account = newProviderAccount("google");
    const HttpResult result = client.get(
        "/v1/auth/social/google/redirect?redirect_uri=https%3A%2F%2Fapp.example.test"
        "%2Fother%2Fcallback");
    const Json data = E2E_ASSERT_DATA(200, result);
    const std::string url = str(data["authorization_url"]);
    CPPUNIT_ASSERT_EQUAL(std::string(kOtherCallback), queryOf(url).at("redirect_uri"));
    // The provider sends the browser there, and the code is exchanged with
    // that same redirect URI (the provider checks it).
    const std::string back = browseToRedirect(url, str(account["id"]));
    CPPUNIT_ASSERT_EQUAL(0, static_cast<int>(back.rfind(std::string(kOtherCallback) + "?", 0)));
    const HttpResult login =
        postCallback(client, "google", queryOf(back).at("code"), str(data["state"]));
    ASSERT_LOGGED_IN(login, str(account["email"]));
  }

  void testVariantACreatesUserWithCompany() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const std::string email = str(account["email"]);
    const HttpResult result = loginVariantA(client, "google", str(account["id"]));
    const Json data = ASSERT_LOGGED_IN(result, email);
    CPPUNIT_ASSERT_EQUAL(str(account["name"]), str(data["user"]["name"]));
    const std::string userId = str(data["user"]["id"]);
    // The token works; the user owns a new company named after them.
    client.setToken(str(data["token"]));
    const Json me = E2E_ASSERT_DATA(200, client.get("/v1/auth/me"));
    CPPUNIT_ASSERT_EQUAL(userId, str(me["id"]));
    CPPUNIT_ASSERT_EQUAL(false, me["two_factor_enabled"].asBool());
    const Json companies = E2E_ASSERT_DATA(200, client.get("/v1/user/companies"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), companies.size());
    const Json& company = companies.asArray().front();
    CPPUNIT_ASSERT_EQUAL(str(data["user"]["company_id"]), str(company["id"]));
    CPPUNIT_ASSERT_EQUAL(str(account["name"]) + "'s company", str(company["name"]));
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), str(company["role"]));
    // No password, and the identity is linked by subject.
    const auto rows = queryDatabase(
        server.databaseUrl(),
        "SELECT u.password_hash, i.provider, i.subject FROM users u JOIN social_identities i ON "
        "i.user_id = u.id WHERE u.id = " +
            sqlQuote(userId));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    CPPUNIT_ASSERT_EQUAL(std::string(), rows[0][0]);
    CPPUNIT_ASSERT_EQUAL(std::string("google"), rows[0][1]);
    CPPUNIT_ASSERT_EQUAL(str(account["id"]), rows[0][2]);
    // A password login finds no password for this user.
    E2E_ASSERT_ERROR(401, login(client, email, "any password at all"));
  }

  void testVariantB() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const Started started = startLogin(client, "google");
    const HttpResult answer =
        getCallback(client, "google", codeFor(started, str(account["id"])), started.state);
    const Json data = E2E_ASSERT_DATA(200, answer);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), data.size());
    const std::string exchangeCode = str(data["exchange_code"]);
    CPPUNIT_ASSERT_EQUAL(std::size_t(43), exchangeCode.size());
    const HttpResult token = postExchange(client, exchangeCode);
    const Json tokenData = ASSERT_LOGGED_IN(token, str(account["email"]));
    // Single use.
    const Json reused = E2E_ASSERT_ERROR(422, postExchange(client, exchangeCode));
    CPPUNIT_ASSERT_EQUAL(std::string("The exchange code is invalid or has expired."),
                         str(reused["errors"]["exchange_code"].asArray().front()));
    // The same user through variant A afterwards.
    const Json again = ASSERT_LOGGED_IN(loginVariantA(client, "google", str(account["id"])),
                                        str(account["email"]));
    CPPUNIT_ASSERT_EQUAL(str(tokenData["user"]["id"]), str(again["user"]["id"]));
  }

  void testSecretsAreStoredHashedOrSealed() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const Started started = startLogin(client, "google");
    const std::string hash = opensslSha256(started.state);
    auto rows = queryDatabase(server.databaseUrl(),
                              "SELECT provider, code_verifier_sealed, redirect_uri, used_at, "
                              "expires_at - created_at FROM social_states WHERE state_hash = " +
                                  sqlQuote(hash));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    CPPUNIT_ASSERT_EQUAL(std::string("google"), rows[0][0]);
    CPPUNIT_ASSERT_EQUAL(0, static_cast<int>(rows[0][1].rfind("rk1:", 0)));  // sealed
    CPPUNIT_ASSERT_EQUAL(std::string(kCallback), rows[0][2]);
    CPPUNIT_ASSERT_EQUAL(std::string(), rows[0][3]);
    CPPUNIT_ASSERT_EQUAL(std::string("600000000"), rows[0][4]);  // 10 minutes
    CPPUNIT_ASSERT(
        queryDatabase(server.databaseUrl(),
                      "SELECT 1 FROM social_states WHERE state_hash = " + sqlQuote(started.state))
            .empty());
    const HttpResult answer =
        getCallback(client, "google", codeFor(started, str(account["id"])), started.state);
    const std::string exchangeCode = str(E2E_ASSERT_DATA(200, answer)["exchange_code"]);
    rows = queryDatabase(server.databaseUrl(),
                         "SELECT used_at FROM social_states WHERE state_hash = " + sqlQuote(hash));
    CPPUNIT_ASSERT(!rows[0][0].empty());  // consumed
    rows = queryDatabase(server.databaseUrl(),
                         "SELECT provider, expires_at - created_at FROM social_exchange_codes "
                         "WHERE code_hash = " +
                             sqlQuote(opensslSha256(exchangeCode)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    CPPUNIT_ASSERT_EQUAL(std::string("google"), rows[0][0]);
    CPPUNIT_ASSERT_EQUAL(std::string("60000000"), rows[0][1]);  // 60 s
  }

  void testLinksVerifiedEmailToPasswordUser() {
    HttpClient client(socialServer().port());
    const Account registered = registerUser(client, "linked");
    // Both sides vouch for the address: the provider, and the user who
    // proved it with the verification mail (issue 21).
    verifyEmail(socialServer(), registered);
    const Json account = newProviderAccount("google", true, registered.email);
    const Json data =
        ASSERT_LOGGED_IN(loginVariantA(client, "google", str(account["id"])), registered.email);
    CPPUNIT_ASSERT_EQUAL(registered.userId, str(data["user"]["id"]));
    CPPUNIT_ASSERT_EQUAL(registered.companyId, str(data["user"]["company_id"]));
    CPPUNIT_ASSERT_EQUAL(registered.name, str(data["user"]["name"]));  // the user's own name
    // The password still works, and the identity stays linked: a second
    // social login lands in the same user.
    E2E_ASSERT_DATA(200, login(client, registered.email, registered.password));
    const Json again =
        ASSERT_LOGGED_IN(loginVariantB(client, "google", str(account["id"])), registered.email);
    CPPUNIT_ASSERT_EQUAL(registered.userId, str(again["user"]["id"]));
  }

  void testSecondLoginMatchedBySubjectAfterEmailChange() {
    HttpClient client(socialServer().port());
    Json account = newProviderAccount("google");
    const std::string firstEmail = str(account["email"]);
    const Json first =
        ASSERT_LOGGED_IN(loginVariantA(client, "google", str(account["id"])), firstEmail);
    // The user changes their address at the provider; it also belongs to
    // another Rapport user, which must not matter: the subject decides.
    const Account other = registerUser(client, "other");
    account.set("email", other.email);
    IdentityProvider::instance().putAccount(account);
    const Json second =
        ASSERT_LOGGED_IN(loginVariantA(client, "google", str(account["id"])), firstEmail);
    CPPUNIT_ASSERT_EQUAL(str(first["user"]["id"]), str(second["user"]["id"]));
    CPPUNIT_ASSERT(str(second["user"]["id"]) != other.userId);
  }

  void testGitHubUserAndVerifiedPrimaryEmail() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    Json account = newProviderAccount("github");
    const std::string primary = uniqueEmail("gh-primary");
    account.set("login", "octo" + randomHex(4));
    account.set("name", Json());  // GitHub users may have no name: the login is used
    account.set(
        "emails",
        Json::array()
            .push(Json::object(
                {{"email", uniqueEmail("gh-unverified")}, {"primary", false}, {"verified", false}}))
            .push(Json::object({{"email", primary}, {"primary", true}, {"verified", true}})));
    IdentityProvider::instance().putAccount(account);
    const Json data =
        ASSERT_LOGGED_IN(loginVariantA(client, "github", str(account["id"])), primary);
    CPPUNIT_ASSERT_EQUAL(str(account["login"]), str(data["user"]["name"]));
    const auto rows = queryDatabase(server.databaseUrl(),
                                    "SELECT subject FROM social_identities WHERE provider = "
                                    "'github' AND user_id = " +
                                        sqlQuote(str(data["user"]["id"])));
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), rows.size());
    CPPUNIT_ASSERT_EQUAL(str(account["id"]), rows[0][0]);  // GitHub's numeric id
    // Variant B for GitHub too.
    const Json again =
        ASSERT_LOGGED_IN(loginVariantB(client, "github", str(account["id"])), primary);
    CPPUNIT_ASSERT_EQUAL(str(data["user"]["id"]), str(again["user"]["id"]));
  }

  void testMicrosoftWithClientSecretBasic() {
    // The provider registered this client with client_secret_basic and
    // refuses the secret in the body: success proves the Basic header.
    HttpClient client(socialServer().port());
    const Json account = newProviderAccount("microsoft");
    ASSERT_LOGGED_IN(loginVariantA(client, "microsoft", str(account["id"])), str(account["email"]));
    ASSERT_LOGGED_IN(loginVariantB(client, "microsoft", str(account["id"])), str(account["email"]));
  }

  void testTwoFactorAccountGetsTheChallenge() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const Json data = ASSERT_LOGGED_IN(loginVariantA(client, "google", str(account["id"])),
                                       str(account["email"]));
    execDatabase(server.databaseUrl(), "UPDATE users SET two_factor_enabled = (1 = 1) WHERE id = " +
                                           sqlQuote(str(data["user"]["id"])));
    for (const bool variantB : {false, true}) {
      const HttpResult result = variantB ? loginVariantB(client, "google", str(account["id"]))
                                         : loginVariantA(client, "google", str(account["id"]));
      // decisions §4: 403 (auth.two_factor_status) with the challenge, no token.
      const Json challenge = E2E_ASSERT_DATA(403, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), challenge["two_factor_required"].asBool());
      CPPUNIT_ASSERT_MESSAGE(describe(result), !str(challenge["challenge_id"]).empty());
      CPPUNIT_ASSERT_EQUAL(str(challenge["challenge_id"]), str(challenge["two_factor_token"]));
      CPPUNIT_ASSERT_MESSAGE(describe(result), !challenge.contains("token"));
    }
  }

  void testDisabledAccountIs403() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const Json data = ASSERT_LOGGED_IN(loginVariantA(client, "google", str(account["id"])),
                                       str(account["email"]));
    execDatabase(server.databaseUrl(), "UPDATE users SET disabled = (1 = 1) WHERE id = " +
                                           sqlQuote(str(data["user"]["id"])));
    const Json error = E2E_ASSERT_ERROR(403, loginVariantA(client, "google", str(account["id"])));
    CPPUNIT_ASSERT_EQUAL(std::string("This account has been disabled."), str(error["message"]));
    E2E_ASSERT_ERROR(403, loginVariantB(client, "google", str(account["id"])));
  }

  void testNothingSecretInTheLog() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const Started started = startLogin(client, "google");
    const std::string code = codeFor(started, str(account["id"]));
    const HttpResult answer = getCallback(client, "google", code, started.state);
    const std::string exchangeCode = str(E2E_ASSERT_DATA(200, answer)["exchange_code"]);
    const std::string token =
        str(E2E_ASSERT_DATA(200, postExchange(client, exchangeCode))["token"]);
    const std::string log = server.log();
    for (const std::string& secret : {code, started.state, exchangeCode, token,
                                      IdentityProvider::instance().clientSecret("google")}) {
      CPPUNIT_ASSERT_MESSAGE("a secret is in the log", log.find(secret) == std::string::npos);
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SocialFlowTest);
