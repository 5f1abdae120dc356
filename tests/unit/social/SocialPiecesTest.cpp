// The pure parts of social login: PKCE S256 (RFC 7636 appendix B), form
// encoding, the social.* settings and their start-up refusals, and how the
// providers' answers are read (token endpoint, OIDC userinfo, GitHub's user
// and e-mail list).
#include <cppunit/extensions/HelperMacros.h>

#include <set>
#include <stdexcept>

#include "AccountsTestSupport.h"
#include "accounts/social/FormEncoding.h"
#include "accounts/social/Pkce.h"
#include "accounts/social/ProviderClient.h"
#include "accounts/social/SocialOptions.h"
#include "http/UrlCoding.h"

using namespace rapport::host::accounts::social;
using rapport::test::accounts::MapConfig;

namespace {

MapConfig googleConfig() {
  MapConfig config;
  config.values = {{"social.google.client_id", "id"},
                   {"social.google.client_secret", "secret"},
                   {"social.google.authorize_url", "https://accounts.example/auth"},
                   {"social.google.token_url", "https://accounts.example/token"},
                   {"social.google.userinfo_url", "https://accounts.example/userinfo"},
                   {"social.google.scope", "openid email profile"},
                   {"social.redirect_allowlist", "https://app.example/cb, com.example.app:/cb"}};
  return config;
}

// The message of the std::invalid_argument fromConfig throws ("" if none).
std::string refusal(const MapConfig& config) {
  try {
    SocialOptions::fromConfig(config);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

ProviderClient::Answer answer(int status, const std::string& body) {
  return {status, body};
}

ProviderFailure::Kind failureOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ProviderFailure& e) {
    return e.kind;
  }
  throw std::logic_error("no ProviderFailure");
}

const std::string kUser = R"({"id": 583231, "login": "octocat", "name": "The Octocat"})";

}  // namespace

class SocialPiecesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SocialPiecesTest);
  CPPUNIT_TEST(testPkceS256MatchesRfc7636);
  CPPUNIT_TEST(testCodeVerifiers);
  CPPUNIT_TEST(testFormEncoding);
  CPPUNIT_TEST(testNoProviderConfigured);
  CPPUNIT_TEST(testConfiguredProvider);
  CPPUNIT_TEST(testProviderUrls);
  CPPUNIT_TEST(testRefusedSettings);
  CPPUNIT_TEST(testTokenAnswers);
  CPPUNIT_TEST(testOidcProfile);
  CPPUNIT_TEST(testGitHubProfile);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPkceS256MatchesRfc7636() {
    CPPUNIT_ASSERT_EQUAL(std::string("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"),
                         s256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"));
  }

  void testCodeVerifiers() {
    std::set<std::string> seen;
    for (int i = 0; i < 50; ++i) {
      const std::string verifier = newCodeVerifier();
      CPPUNIT_ASSERT_EQUAL(std::size_t(43), verifier.size());  // RFC 7636: 43 to 128
      CPPUNIT_ASSERT_EQUAL(std::string::npos, verifier.find_first_not_of(
                                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstu"
                                                  "vwxyz0123456789-._~"));
      seen.insert(verifier);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(50), seen.size());
  }

  void testFormEncoding() {
    CPPUNIT_ASSERT_EQUAL(std::string("aZ09-._~"),
                         rapport::host::percentEncode(std::string("aZ09-._~")));
    CPPUNIT_ASSERT_EQUAL(std::string("https%3A%2F%2Fa.b%2Fc%3Fd%3De%26f%23g"),
                         rapport::host::percentEncode(std::string("https://a.b/c?d=e&f#g")));
    CPPUNIT_ASSERT_EQUAL(std::string("a%20b%2Bc%25%C3%A9"),
                         rapport::host::percentEncode(std::string("a b+c%\xC3\xA9")));
    CPPUNIT_ASSERT_EQUAL(std::string("scope=openid%20email&x=%3D"),
                         formEncode(FormFields{{"scope", "openid email"}, {"x", "="}}));
  }

  void testNoProviderConfigured() {
    const SocialOptions options = SocialOptions::fromConfig(MapConfig{});
    CPPUNIT_ASSERT(options.providers.empty());
    CPPUNIT_ASSERT(options.find("google") == nullptr);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(10), options.timeoutSeconds);
  }

  void testConfiguredProvider() {
    MapConfig config = googleConfig();
    config.values["social.google.token_auth"] = "basic";
    config.values["social.ca_file"] = "/tmp/ca.pem";
    const SocialOptions options = SocialOptions::fromConfig(config);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), options.providers.size());
    const ProviderConfig* google = options.find("google");
    CPPUNIT_ASSERT(google != nullptr);
    CPPUNIT_ASSERT(google->shape == ProfileShape::Oidc);
    CPPUNIT_ASSERT(google->tokenAuth == TokenAuth::Basic);
    CPPUNIT_ASSERT_EQUAL(std::string("openid email profile"), google->scope);
    CPPUNIT_ASSERT(options.find("github") == nullptr);
    CPPUNIT_ASSERT(options.find("facebook") == nullptr);
    CPPUNIT_ASSERT_EQUAL(std::string("/tmp/ca.pem"), options.caFile);
    CPPUNIT_ASSERT(options.redirectAllowed("https://app.example/cb"));
    CPPUNIT_ASSERT(options.redirectAllowed("com.example.app:/cb"));
    CPPUNIT_ASSERT(!options.redirectAllowed("https://app.example/cb/"));
    CPPUNIT_ASSERT(!options.redirectAllowed("https://app.example/c"));
    CPPUNIT_ASSERT(!options.redirectAllowed("HTTPS://app.example/cb"));
  }

  void testProviderUrls() {
    for (const char* good : {"https://accounts.example/token", "https://10.0.0.1:8443/t",
                             "http://127.0.0.1:8080/token", "http://127.5.6.7/token",
                             "http://[::1]:9/token", "http://localhost:3000/token"}) {
      CPPUNIT_ASSERT_MESSAGE(good, isAcceptedProviderUrl(good));
    }
    for (const char* bad :
         {"http://accounts.example/token", "http://10.0.0.1/token", "http://[::2]/token",
          "ftp://127.0.0.1/token", "https:///token", "https://user:pass@accounts.example/token",
          "https://accounts.example/token#x", "not a url", ""}) {
      CPPUNIT_ASSERT_MESSAGE(bad, !isAcceptedProviderUrl(bad));
    }
  }

  void testRefusedSettings() {
    MapConfig config = googleConfig();
    config.values["social.google.token_url"] = "http://accounts.example/token";
    CPPUNIT_ASSERT_EQUAL(std::string("social.google.token_url must be an https URL (http only on "
                                     "a loopback address): http://accounts.example/token"),
                         refusal(config));
    config = googleConfig();
    config.values.erase("social.google.client_secret");
    CPPUNIT_ASSERT_EQUAL(std::string("social.google.client_id and social.google.client_secret "
                                     "must be set together"),
                         refusal(config));
    config = googleConfig();
    config.values.erase("social.redirect_allowlist");
    // Accepted: the redirect step answers 422 instead (e2e.social).
    CPPUNIT_ASSERT_EQUAL(std::string(), refusal(config));
    config = googleConfig();
    config.values["social.redirect_allowlist"] = "https://app.example/cb#frag";
    CPPUNIT_ASSERT(refusal(config).find("social.redirect_allowlist entries must be absolute") == 0);
    config = googleConfig();
    config.values["social.redirect_allowlist"] = "/relative/cb";
    CPPUNIT_ASSERT(refusal(config).find("social.redirect_allowlist entries must be absolute") == 0);
    config = googleConfig();
    config.values["social.google.userinfo_url"] = "";
    CPPUNIT_ASSERT_EQUAL(std::string("social.google.userinfo_url must be set"), refusal(config));
    config = googleConfig();
    config.values["social.google.token_auth"] = "private_key_jwt";
    CPPUNIT_ASSERT(refusal(config).find("social.google.token_auth must be post or basic") == 0);
    config = googleConfig();
    config.values["social.timeout"] = "0";
    CPPUNIT_ASSERT(refusal(config).find("social.timeout must be between 1 and 120") == 0);
    // GitHub needs its e-mails endpoint too.
    config = MapConfig{};
    config.values = {{"social.github.client_id", "id"},
                     {"social.github.client_secret", "secret"},
                     {"social.github.authorize_url", "https://github.example/authorize"},
                     {"social.github.token_url", "https://github.example/token"},
                     {"social.github.userinfo_url", "https://api.github.example/user"},
                     {"social.github.scope", "read:user user:email"},
                     {"social.redirect_allowlist", "https://app.example/cb"}};
    CPPUNIT_ASSERT_EQUAL(std::string("social.github.emails_url must be set"), refusal(config));
    config.values["social.github.emails_url"] = "https://api.github.example/user/emails";
    CPPUNIT_ASSERT(SocialOptions::fromConfig(config).find("github")->shape == ProfileShape::GitHub);
  }

  void testTokenAnswers() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("at-1"),
        accessTokenFrom(answer(200, R"({"access_token":"at-1","token_type":"Bearer"})")));
    using K = ProviderFailure::Kind;
    CPPUNIT_ASSERT(K::Rejected ==
                   failureOf([] { accessTokenFrom(answer(400, R"({"error":"invalid_grant"})")); }));
    CPPUNIT_ASSERT(K::Rejected == failureOf([] {
                     accessTokenFrom(answer(401, R"({"error":"invalid_client"})"));
                   }));
    // GitHub's way: 200 with an error.
    CPPUNIT_ASSERT(K::Rejected == failureOf([] {
                     accessTokenFrom(answer(200, R"({"error":"bad_verification_code"})"));
                   }));
    CPPUNIT_ASSERT(K::Rejected == failureOf([] { accessTokenFrom(answer(200, R"({})")); }));
    CPPUNIT_ASSERT(K::Unavailable == failureOf([] { accessTokenFrom(answer(500, "oops")); }));
    CPPUNIT_ASSERT(K::Unavailable == failureOf([] { accessTokenFrom(answer(302, "")); }));
    CPPUNIT_ASSERT(K::Unavailable ==
                   failureOf([] { accessTokenFrom(answer(200, "access_token=at-1")); }));
  }

  void testOidcProfile() {
    ProviderProfile p = oidcProfileFrom(answer(
        200, R"({"sub":"s-1","email":"Ann@Example.com","email_verified":true,"name":"Ann"})"));
    CPPUNIT_ASSERT_EQUAL(std::string("s-1"), p.subject);
    CPPUNIT_ASSERT_EQUAL(std::string("Ann@Example.com"), *p.email);
    CPPUNIT_ASSERT(p.emailVerified);
    CPPUNIT_ASSERT_EQUAL(std::string("Ann"), p.name);
    // "true" as a string counts; absent or false does not.
    p = oidcProfileFrom(answer(200, R"({"sub":"s","email":"a@b.co","email_verified":"true"})"));
    CPPUNIT_ASSERT(p.emailVerified);
    CPPUNIT_ASSERT_EQUAL(std::string("a"), p.name);  // no name: the e-mail's local part
    p = oidcProfileFrom(answer(200, R"({"sub":"s","email":"a@b.co"})"));
    CPPUNIT_ASSERT(!p.emailVerified);
    p = oidcProfileFrom(answer(200, R"({"sub":"s","email":"a@b.co","email_verified":false})"));
    CPPUNIT_ASSERT(!p.emailVerified);
    // An address that is not one is no address.
    p = oidcProfileFrom(answer(200, R"({"sub":"s","email":"nope","email_verified":true})"));
    CPPUNIT_ASSERT(!p.email);
    CPPUNIT_ASSERT(!p.emailVerified);
    CPPUNIT_ASSERT_EQUAL(std::string("User"), p.name);
    // Names are cut to 255 characters (code points, not bytes).
    std::string longName;
    for (int i = 0; i < 300; ++i) longName += "\xC3\xA9";
    p = oidcProfileFrom(answer(200, R"({"sub":"s","name":")" + longName + R"("})"));
    CPPUNIT_ASSERT_EQUAL(std::size_t(510), p.name.size());
    using K = ProviderFailure::Kind;
    CPPUNIT_ASSERT(K::Rejected == failureOf([] { oidcProfileFrom(answer(401, "")); }));
    CPPUNIT_ASSERT(K::Unavailable == failureOf([] { oidcProfileFrom(answer(503, "")); }));
    CPPUNIT_ASSERT(K::Unavailable ==
                   failureOf([] { oidcProfileFrom(answer(200, R"({"email":"a@b.co"})")); }));
    CPPUNIT_ASSERT(K::Unavailable == failureOf([] { oidcProfileFrom(answer(200, "[]")); }));
  }

  void testGitHubProfile() {
    // The verified primary address wins.
    ProviderProfile p = githubProfileFrom(
        answer(200, kUser), answer(200, R"([{"email":"old@x.io","primary":false,"verified":true},
                        {"email":"main@x.io","primary":true,"verified":true}])"));
    CPPUNIT_ASSERT_EQUAL(std::string("583231"), p.subject);
    CPPUNIT_ASSERT_EQUAL(std::string("main@x.io"), *p.email);
    CPPUNIT_ASSERT(p.emailVerified);
    CPPUNIT_ASSERT_EQUAL(std::string("The Octocat"), p.name);
    // Primary unverified: another verified address.
    p = githubProfileFrom(answer(200, kUser),
                          answer(200, R"([{"email":"main@x.io","primary":true,"verified":false},
                        {"email":"other@x.io","primary":false,"verified":true}])"));
    CPPUNIT_ASSERT_EQUAL(std::string("other@x.io"), *p.email);
    CPPUNIT_ASSERT(p.emailVerified);
    // Nothing verified: the primary, unverified.
    p = githubProfileFrom(
        answer(200, R"({"id": 7, "login": "ghost", "name": null})"),
        answer(200, R"([{"email":"main@x.io","primary":true,"verified":false}])"));
    CPPUNIT_ASSERT_EQUAL(std::string("main@x.io"), *p.email);
    CPPUNIT_ASSERT(!p.emailVerified);
    CPPUNIT_ASSERT_EQUAL(std::string("ghost"), p.name);  // no name: the login
    using K = ProviderFailure::Kind;
    CPPUNIT_ASSERT(K::Rejected == failureOf([] {
                     githubProfileFrom(answer(401, R"({"message":"Bad credentials"})"),
                                       answer(200, "[]"));
                   }));
    CPPUNIT_ASSERT(K::Rejected ==
                   failureOf([] { githubProfileFrom(answer(200, kUser), answer(403, "{}")); }));
    CPPUNIT_ASSERT(K::Unavailable == failureOf([] {
                     githubProfileFrom(answer(200, R"({"login":"x"})"), answer(200, "[]"));
                   }));
    CPPUNIT_ASSERT(K::Unavailable ==
                   failureOf([] { githubProfileFrom(answer(200, kUser), answer(200, "{}")); }));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SocialPiecesTest);
