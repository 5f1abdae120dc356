// What the e2e.social tests share: a real OpenID Connect provider on
// loopback (oidc-provider from npm, idp/idp.mjs, over HTTPS with a
// certificate from the throw-away TestCa), a browser that follows an
// authorization URL through it (cookies, redirects, the login form), and a
// rapportd whose three providers point at it.
//
// The provider's clients: google and github authenticate with
// client_secret_post, microsoft with client_secret_basic (rapportd:
// social.microsoft.token_auth = basic); each requires PKCE (S256). GitHub's
// /user and /user/emails are answered by the stand-in routes of idp.mjs.
#pragma once

#include <map>
#include <string>

#include "e2e/common/Api.h"

namespace rapport::e2e::social {

inline constexpr const char* kCallback = "https://app.example.test/social/callback";
inline constexpr const char* kOtherCallback = "https://app.example.test/other/callback";

// The oidc-provider process (started once per test process).
class IdentityProvider {
 public:
  static IdentityProvider& instance();
  ~IdentityProvider();

  int port() const { return port_; }
  // The same provider behind a certificate (same CA) for "wrong.example".
  int wrongPort() const { return wrongPort_; }
  std::string url(const std::string& path) const;  // https://127.0.0.1:<port><path>
  // Creates or replaces an account (POST /test/accounts): {id, email,
  // email_verified, name, emails?}.
  void putAccount(const Json& account);
  std::string clientSecret(const std::string& provider) const;
  std::string log() const;

 private:
  IdentityProvider();
  std::string dir_;
  int pid_ = 0;
  int port_ = 0;
  int wrongPort_ = 0;
};

// Follows an authorization URL as a browser would (fresh cookie jar), signs
// in as `login` on the provider's form, consents, and returns the URL the
// provider finally redirects to (the redirect URI with code and state).
std::string browseToRedirect(const std::string& authorizationUrl, const std::string& login);

// The query parameters of a URL, decoded.
std::map<std::string, std::string> queryOf(const std::string& url);

// rapportd settings with all three providers on the IdentityProvider.
ServerProcess::Settings socialSettings(ServerProcess::Settings extra = {});
// The server shared by the suites (fresh database, generous rate limit).
ServerProcess& socialServer();

// A provider account nobody else uses: {id, email, email_verified, name}.
// GitHub ids are numeric (GitHub's own are).
Json newProviderAccount(const std::string& provider, bool emailVerified = true,
                        const std::string& email = "");

// One step of the flow.
struct Started {
  std::string state;
  std::string authorizationUrl;
};
Started startLogin(HttpClient& client, const std::string& provider);
// Runs the browser and returns the code, checking that the state came back.
std::string codeFor(const Started& started, const std::string& login);
HttpResult postCallback(HttpClient& client, const std::string& provider, const std::string& code,
                        const std::string& state);
HttpResult getCallback(HttpClient& client, const std::string& provider, const std::string& code,
                       const std::string& state);
HttpResult postExchange(HttpClient& client, const std::string& exchangeCode);

// Variant A from the start: redirect, browser, POST callback.
HttpResult loginVariantA(HttpClient& client, const std::string& provider, const std::string& login);
// Variant B: redirect, browser, GET callback (asserting 200), POST exchange.
HttpResult loginVariantB(HttpClient& client, const std::string& provider, const std::string& login);

// Lower-case SHA-256 hex by the `openssl` command (not the server's code).
std::string opensslSha256(const std::string& text);

// Runs an UPDATE on the server's database; throws when it changed no row.
void execDatabase(const std::string& databaseUrl, const std::string& sql);

// The folder where `server` writes its mail (the default outbox).
std::string outboxOf(const ServerProcess& server);
// The token of the `count`-th mail to `email` (waiting for it): the only run
// of 43 base64url characters in its text (reset and verification mails).
std::string mailedToken(const ServerProcess& server, const std::string& email,
                        std::size_t count = 1);
// Proves `account`'s address the way a user does: POST
// /v1/auth/email/verification with its token, the token from the mail, POST
// /v1/auth/email/verify; asserts each step.
void verifyEmail(const ServerProcess& server, const Account& account);
// The user ids whose address is `email` (case-insensitive), comma-separated
// ("" when none).
std::string usersWithEmail(const ServerProcess& server, const std::string& email);
// The providers linked to `userId`, sorted, comma-separated ("" when none).
std::string linkedProviders(const ServerProcess& server, const std::string& userId);

}  // namespace rapport::e2e::social
