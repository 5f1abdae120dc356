// Social login refusals (API "Social login"; decisions §5): unknown and
// unconfigured providers, redirect URIs outside the allow-list, state
// mismatch, reuse, another provider's state and expiry, exchange codes
// reused or expired, missing fields, a code the provider rejects, an
// unverified e-mail of an existing user, and settings refused at start-up.
#include <cppunit/extensions/HelperMacros.h>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>

#include "e2e/social/SocialSuite.h"
#include "rapport/ids.h"
#include "support/TestCa.h"

using namespace rapport::e2e;
using namespace rapport::e2e::social;

namespace {

std::string str(const Json& value) {
  return value.isString() ? value.asString() : value.dump();
}

// The single message of a 422 on `field`.
std::string fieldMessage(const Json& error, const std::string& field) {
  const Json& messages = error["errors"][field];
  return messages.isArray() && messages.size() == 1 ? str(messages.asArray().front())
                                                    : error.dump();
}

const std::string kBadState = "The state is invalid or has expired.";
const std::string kBadExchange = "The exchange code is invalid or has expired.";

}  // namespace

class SocialGuardTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SocialGuardTest);
  CPPUNIT_TEST(testUnknownProviderIs404);
  CPPUNIT_TEST(testUnconfiguredProviderIs404);
  CPPUNIT_TEST(testRedirectUriNotAllowed);
  CPPUNIT_TEST(testStateMismatch);
  CPPUNIT_TEST(testStateReuse);
  CPPUNIT_TEST(testStateOfAnotherProvider);
  CPPUNIT_TEST(testExpiredState);
  CPPUNIT_TEST(testExpiredExchangeCode);
  CPPUNIT_TEST(testExchangeCodeValidation);
  CPPUNIT_TEST(testMissingCodeAndState);
  CPPUNIT_TEST(testProviderRejectingTheCodeIs401);
  CPPUNIT_TEST(testProviderErrorOnGetCallback);
  CPPUNIT_TEST(testUnreachableOrUntrustedProviderIs502);
  CPPUNIT_TEST(testUnverifiedEmailOfExistingUserIs409);
  CPPUNIT_TEST(testStartupRefusesBadSettings);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testUnknownProviderIs404() {
    HttpClient client(socialServer().port());
    for (const HttpResult& result :
         {client.get("/v1/auth/social/facebook/redirect"),
          client.post("/v1/auth/social/facebook/callback",
                      Json::object({{"code", "x"}, {"state", "y"}})),
          client.get("/v1/auth/social/facebook/callback?code=x&state=y")}) {
      const Json error = E2E_ASSERT_ERROR(404, result);
      CPPUNIT_ASSERT_EQUAL(std::string("Social login provider not supported."),
                           str(error["message"]));
    }
  }

  void testUnconfiguredProviderIs404() {
    // Only google configured here: github and microsoft answer like an
    // unknown provider.
    ServerProcess::Settings settings = socialSettings();
    for (const char* key : {"social.github.client_id", "social.github.client_secret",
                            "social.microsoft.client_id", "social.microsoft.client_secret"})
      settings.erase(key);
    ServerProcess server(settings);
    HttpClient client(server.port());
    E2E_ASSERT_DATA(200, client.get("/v1/auth/social/google/redirect"));
    for (const char* provider : {"github", "microsoft"}) {
      const Json error = E2E_ASSERT_ERROR(
          404, client.get(std::string("/v1/auth/social/") + provider + "/redirect"));
      CPPUNIT_ASSERT_EQUAL(std::string("Social login provider not supported."),
                           str(error["message"]));
    }
    // Without any provider (the default) every one is 404.
    ServerProcess bare(generousSettings(ServerProcess::Settings{{"modules.enabled", ""}}));
    HttpClient bareClient(bare.port());
    E2E_ASSERT_ERROR(404, bareClient.get("/v1/auth/social/google/redirect"));
  }

  void testRedirectUriNotAllowed() {
    HttpClient client(socialServer().port());
    for (const std::string& uri :
         {std::string("https%3A%2F%2Fevil.example%2Fsocial%2Fcallback"),
          // Exact match: no prefix, suffix, case or trailing-slash games.
          std::string("https%3A%2F%2Fapp.example.test%2Fsocial%2Fcallback%2F"),
          std::string("https%3A%2F%2Fapp.example.test%2Fsocial%2Fcallback%3Fx%3D1"),
          std::string("HTTPS%3A%2F%2Fapp.example.test%2Fsocial%2Fcallback"), std::string("")}) {
      const Json error =
          E2E_ASSERT_ERROR(422, client.get("/v1/auth/social/google/redirect?redirect_uri=" + uri));
      CPPUNIT_ASSERT_EQUAL(std::string("The redirect uri is not allowed."),
                           fieldMessage(error, "redirect_uri"));
    }
  }

  void testStateMismatch() {
    HttpClient client(socialServer().port());
    const Json account = newProviderAccount("google");
    const Started started = startLogin(client, "google");
    const std::string code = codeFor(started, str(account["id"]));
    const std::string forged =
        started.state.substr(0, 42) + (started.state.back() == 'A' ? "B" : "A");
    const Json error = E2E_ASSERT_ERROR(422, postCallback(client, "google", code, forged));
    CPPUNIT_ASSERT_EQUAL(kBadState, fieldMessage(error, "state"));
    E2E_ASSERT_ERROR(422, getCallback(client, "google", code, "not-a-state"));
    // The real state still works (a wrong one consumes nothing).
    E2E_ASSERT_DATA(200, postCallback(client, "google", code, started.state));
  }

  void testStateReuse() {
    HttpClient client(socialServer().port());
    const Json account = newProviderAccount("google");
    const Started started = startLogin(client, "google");
    const std::string code = codeFor(started, str(account["id"]));
    E2E_ASSERT_DATA(200, postCallback(client, "google", code, started.state));
    // Replayed, with the same code or a fresh one, by either variant.
    const Json error = E2E_ASSERT_ERROR(422, postCallback(client, "google", code, started.state));
    CPPUNIT_ASSERT_EQUAL(kBadState, fieldMessage(error, "state"));
    const Started other = startLogin(client, "google");
    const std::string freshCode = codeFor(other, str(account["id"]));
    E2E_ASSERT_ERROR(422, getCallback(client, "google", freshCode, started.state));
  }

  void testStateOfAnotherProvider() {
    HttpClient client(socialServer().port());
    const Json account = newProviderAccount("google");
    const Started started = startLogin(client, "google");
    const std::string code = codeFor(started, str(account["id"]));
    const Json error = E2E_ASSERT_ERROR(422, postCallback(client, "github", code, started.state));
    CPPUNIT_ASSERT_EQUAL(kBadState, fieldMessage(error, "state"));
    E2E_ASSERT_ERROR(422, getCallback(client, "microsoft", code, started.state));
    // It was not consumed by the wrong provider.
    E2E_ASSERT_DATA(200, postCallback(client, "google", code, started.state));
  }

  void testExpiredState() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const Started started = startLogin(client, "google");
    const std::string code = codeFor(started, str(account["id"]));
    // Ten minutes pass (the state's life): moved in the database.
    execDatabase(
        server.databaseUrl(),
        "UPDATE social_states SET expires_at = expires_at - 600000000 WHERE state_hash = " +
            sqlQuote(opensslSha256(started.state)));
    const Json error = E2E_ASSERT_ERROR(422, postCallback(client, "google", code, started.state));
    CPPUNIT_ASSERT_EQUAL(kBadState, fieldMessage(error, "state"));
    E2E_ASSERT_ERROR(422, getCallback(client, "google", code, started.state));
  }

  void testExpiredExchangeCode() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    const Started started = startLogin(client, "google");
    const HttpResult answer =
        getCallback(client, "google", codeFor(started, str(account["id"])), started.state);
    const std::string exchangeCode = str(E2E_ASSERT_DATA(200, answer)["exchange_code"]);
    execDatabase(server.databaseUrl(),
                 "UPDATE social_exchange_codes SET expires_at = expires_at - 60000000 WHERE "
                 "code_hash = " +
                     sqlQuote(opensslSha256(exchangeCode)));
    const Json error = E2E_ASSERT_ERROR(422, postExchange(client, exchangeCode));
    CPPUNIT_ASSERT_EQUAL(kBadExchange, fieldMessage(error, "exchange_code"));
  }

  void testExchangeCodeValidation() {
    HttpClient client(socialServer().port());
    Json error = E2E_ASSERT_ERROR(422, client.post("/v1/auth/social/exchange", Json::object()));
    CPPUNIT_ASSERT_EQUAL(std::string("The exchange_code field is required."),
                         fieldMessage(error, "exchange_code"));
    error = E2E_ASSERT_ERROR(422, postExchange(client, rapport::randomToken(32)));
    CPPUNIT_ASSERT_EQUAL(kBadExchange, fieldMessage(error, "exchange_code"));
  }

  void testMissingCodeAndState() {
    HttpClient client(socialServer().port());
    Json error = E2E_ASSERT_ERROR(422, client.get("/v1/auth/social/google/callback?state=abc"));
    CPPUNIT_ASSERT_EQUAL(std::string("The code field is required."), fieldMessage(error, "code"));
    CPPUNIT_ASSERT(!error["errors"].contains("state"));
    error = E2E_ASSERT_ERROR(422, client.get("/v1/auth/social/google/callback?code=abc"));
    CPPUNIT_ASSERT_EQUAL(std::string("The state field is required."), fieldMessage(error, "state"));
    error = E2E_ASSERT_ERROR(422, client.post("/v1/auth/social/google/callback", Json::object()));
    CPPUNIT_ASSERT_EQUAL(std::string("The code field is required."), fieldMessage(error, "code"));
    CPPUNIT_ASSERT_EQUAL(std::string("The state field is required."), fieldMessage(error, "state"));
  }

  void testProviderRejectingTheCodeIs401() {
    HttpClient client(socialServer().port());
    const Json account = newProviderAccount("google");
    for (const bool variantB : {false, true}) {
      const Started started = startLogin(client, "google");
      std::string code = codeFor(started, str(account["id"]));
      code.back() = code.back() == 'A' ? 'B' : 'A';  // tampered
      const HttpResult result = variantB ? getCallback(client, "google", code, started.state)
                                         : postCallback(client, "google", code, started.state);
      const Json error = E2E_ASSERT_ERROR(401, result);
      CPPUNIT_ASSERT_EQUAL(std::string("Authentication with provider failed."),
                           str(error["message"]));
      // The state died with the attempt.
      E2E_ASSERT_ERROR(422, postCallback(client, "google", code, started.state));
    }
  }

  void testProviderErrorOnGetCallback() {
    // The user declined at the provider: ?error=access_denied&state=...
    HttpClient client(socialServer().port());
    const Started started = startLogin(client, "google");
    const Json error = E2E_ASSERT_ERROR(
        401,
        client.get("/v1/auth/social/google/callback?error=access_denied&state=" + started.state));
    CPPUNIT_ASSERT_EQUAL(std::string("Authentication with provider failed."),
                         str(error["message"]));
    E2E_ASSERT_ERROR(422, postCallback(client, "google", "any", started.state));
  }

  void testUnreachableOrUntrustedProviderIs502() {
    const std::string unreachable = "The identity provider could not be reached.";
    // A token endpoint where nothing listens (a port just freed).
    int freePort = 0;
    {
      Poco::Net::ServerSocket probe(Poco::Net::SocketAddress("127.0.0.1", 0));
      freePort = probe.address().port();
    }
    ServerProcess::Settings settings = socialSettings();
    settings["social.google.token_url"] = "http://127.0.0.1:" + std::to_string(freePort) + "/token";
    ServerProcess server(settings);
    HttpClient client(server.port());
    const Json account = newProviderAccount("google");
    Started started = startLogin(client, "google");
    Json error = E2E_ASSERT_ERROR(
        502, postCallback(client, "google", codeFor(started, str(account["id"])), started.state));
    CPPUNIT_ASSERT_EQUAL(unreachable, str(error["message"]));

    // Without social.ca_file the provider's certificate is not trusted (the
    // system store only): the TLS handshake fails.
    ServerProcess::Settings untrusted = socialSettings();
    untrusted.erase("social.ca_file");
    ServerProcess strict(untrusted);
    HttpClient strictClient(strict.port());
    started = startLogin(strictClient, "google");
    error = E2E_ASSERT_ERROR(
        502,
        postCallback(strictClient, "google", codeFor(started, str(account["id"])), started.state));
    CPPUNIT_ASSERT_EQUAL(unreachable, str(error["message"]));
    CPPUNIT_ASSERT_MESSAGE(strict.log(), !linesContaining(strict.log(), "certificate").empty());

    // A certificate from the trusted CA, but for another host name.
    ServerProcess::Settings misnamed = socialSettings();
    misnamed["social.google.token_url"] =
        "https://127.0.0.1:" + std::to_string(IdentityProvider::instance().wrongPort()) + "/token";
    ServerProcess named(misnamed);
    HttpClient namedClient(named.port());
    started = startLogin(namedClient, "google");
    error = E2E_ASSERT_ERROR(
        502,
        postCallback(namedClient, "google", codeFor(started, str(account["id"])), started.state));
    CPPUNIT_ASSERT_EQUAL(unreachable, str(error["message"]));
    CPPUNIT_ASSERT_MESSAGE(
        named.log(),
        !linesContaining(named.log(), "certificate is not valid for 127.0.0.1").empty());
  }

  void testUnverifiedEmailOfExistingUserIs409() {
    ServerProcess& server = socialServer();
    HttpClient client(server.port());
    const Account registered = registerUser(client, "victim");
    for (const char* provider : {"google", "github"}) {
      const Json account = newProviderAccount(provider, false, registered.email);
      const Json error = E2E_ASSERT_ERROR(409, loginVariantA(client, provider, str(account["id"])));
      CPPUNIT_ASSERT_EQUAL(
          std::string("An account with this e-mail address already exists and the identity "
                      "provider has not verified the address. Sign in with your password "
                      "instead."),
          str(error["message"]));
    }
    CPPUNIT_ASSERT(
        queryDatabase(server.databaseUrl(), "SELECT 1 FROM social_identities WHERE user_id = " +
                                                sqlQuote(registered.userId))
            .empty());
    // An unverified address nobody has creates nothing either (issue 21:
    // SocialHijackTest has the whole case).
    const Json fresh = newProviderAccount("google", false);
    E2E_ASSERT_ERROR(422, loginVariantA(client, "google", str(fresh["id"])));
    CPPUNIT_ASSERT(usersWithEmail(server, str(fresh["email"])).empty());
  }

  void testStartupRefusesBadSettings() {
    const struct {
      ServerProcess::Settings change;
      std::string message;
    } cases[] = {
        {{{"social.google.token_url", "http://example.com/token"}},
         "social.google.token_url must be an https URL (http only on a loopback address)"},
        {{{"social.github.emails_url", "ftp://127.0.0.1/emails"}},
         "social.github.emails_url must be an https URL"},
        {{{"social.microsoft.client_secret", ""}},
         "social.microsoft.client_id and social.microsoft.client_secret must be set together"},
        {{{"social.google.token_auth", "jwt"}}, "social.google.token_auth must be post or basic"},
    };
    for (const auto& c : cases) {
      ServerProcess::Settings settings = socialSettings();
      for (const auto& [key, value] : c.change) settings[key] = value;
      std::string output;
      const int code = ServerProcess::runToCompletion(settings, {"migrate"}, output);
      CPPUNIT_ASSERT_MESSAGE(output, code != 0 && code < 128);
      CPPUNIT_ASSERT_MESSAGE(c.message + "\n" + output,
                             output.find(c.message) != std::string::npos);
    }
    // http on loopback is accepted (development and tests).
    ServerProcess::Settings settings = socialSettings();
    settings["social.google.token_url"] = "http://127.0.0.1:9/token";
    settings["social.google.userinfo_url"] = "http://[::1]:9/userinfo";
    std::string output;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(output, 0,
                                 ServerProcess::runToCompletion(settings, {"migrate"}, output));
    // An empty allow-list starts; every redirect then answers 422 on
    // redirect_uri, with or without the query.
    settings = socialSettings();
    settings["social.redirect_allowlist"] = "";
    ServerProcess noList(settings);
    HttpClient client(noList.port());
    const Json none = E2E_ASSERT_ERROR(422, client.get("/v1/auth/social/google/redirect"));
    CPPUNIT_ASSERT(fieldMessage(none, "redirect_uri").find("social.redirect_allowlist") !=
                   std::string::npos);
    const Json asked = E2E_ASSERT_ERROR(
        422,
        client.get("/v1/auth/social/google/redirect?redirect_uri=https%3A%2F%2Fapp.example%2Fcb"));
    CPPUNIT_ASSERT_EQUAL(std::string("The redirect uri is not allowed."),
                         fieldMessage(asked, "redirect_uri"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SocialGuardTest);
