// The server-to-server half of social login: the authorization code is
// exchanged at the provider's token endpoint, then the user is read from its
// user-info endpoint (OpenID Connect userinfo, or GitHub's /user and
// /user/emails).
//
// Transport: Poco NetSSL. The TLS context trusts the system store (OpenSSL
// defaults: /etc/ssl/certs) plus `caFile`, verifies the peer chain (TLS 1.2
// at least) and, after the handshake, the host name of the URL against the
// certificate (X509_check_host / X509_check_ip_asc) before a byte of the
// request is sent; SNI carries the host name. http is used only where
// SocialOptions allowed it (loopback). Every request has `timeout` for the
// connection and for each read and write; answers are read up to 1 MiB
// (larger: the provider is treated as unavailable); redirects are not
// followed. Nothing secret (code, verifier, client secret, access token) is
// ever part of an exception message or a log line.
//
// Thread-safe: one client serves every request thread.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <Poco/Net/Context.h>

#include "accounts/social/SocialOptions.h"

namespace rapport::host::accounts::social {

// Why a provider call failed. Rejected: the provider refused the code or
// the token (4xx, an OAuth error) -> 401. Unavailable: it could not be
// reached or answered nonsense -> 502. what() is safe to log.
struct ProviderFailure : std::runtime_error {
  enum class Kind { Rejected, Unavailable };
  ProviderFailure(Kind kind, const std::string& reason) : std::runtime_error(reason), kind(kind) {}
  Kind kind;
};

// The user as the provider describes them.
struct ProviderProfile {
  std::string subject;               // the provider's stable user id
  std::optional<std::string> email;  // a syntactically valid address, or none
  bool emailVerified = false;        // the provider vouches for `email`
  std::string name;                  // never empty (falls back to the e-mail or login)
};

class ProviderClient {
 public:
  ProviderClient(const std::string& caFile, std::chrono::seconds timeout);

  // RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5): the provider's access token.
  std::string exchangeCode(const ProviderConfig& provider, const std::string& code,
                           const std::string& redirectUri, const std::string& codeVerifier);
  ProviderProfile fetchProfile(const ProviderConfig& provider, const std::string& accessToken);

  struct Answer {
    int status = 0;
    std::string body;
  };
  using HeaderList = std::vector<std::pair<std::string, std::string>>;
  // One request; throws ProviderFailure(Unavailable) on any transport failure.
  Answer call(const std::string& method, const std::string& url, const HeaderList& headers,
              const std::string& body = {});

 private:
  Poco::Net::Context::Ptr context_;
  std::chrono::seconds timeout_;
};

// Parsers of the providers' answers (exposed for unit tests). They throw
// ProviderFailure.
std::string accessTokenFrom(const ProviderClient::Answer& answer);
ProviderProfile oidcProfileFrom(const ProviderClient::Answer& userinfo);
ProviderProfile githubProfileFrom(const ProviderClient::Answer& user,
                                  const ProviderClient::Answer& emails);

}  // namespace rapport::host::accounts::social
