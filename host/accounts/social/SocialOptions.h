// Social login configuration (decisions §5 and §12), read once at start-up.
//
//   social.<p>.client_id, .client_secret   the OAuth client at the provider;
//                                          a provider is served only when
//                                          both are set (else 404)
//   social.<p>.authorize_url, .token_url,
//   .userinfo_url                          the provider's endpoints
//   social.github.emails_url               GitHub's e-mail list (verified flag)
//   social.<p>.scope                       space-separated scopes requested
//   social.<p>.token_auth                  "post" (client_secret_post) or
//                                          "basic" (client_secret_basic)
//   social.redirect_allowlist              comma-separated exact redirect URIs
//   social.ca_file                         extra trusted CA (PEM), on top of
//                                          the system store
//   social.timeout                         seconds per provider request
//
// Defaults live in the settings table (app/Settings.cpp); a configured
// provider with an empty endpoint is refused. Every endpoint must be https,
// except http on a loopback address (127.0.0.0/8, ::1, localhost) for
// development and tests; anything else refuses start-up with a message
// naming the key. A configured provider also needs at least one redirect URI
// in the allow-list.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rapport/config.h"

namespace rapport::host::accounts::social {

// How the user is read: OpenID Connect userinfo (google, microsoft), or
// GitHub's /user plus /user/emails.
enum class ProfileShape { Oidc, GitHub };

// How the client authenticates at the token endpoint (RFC 6749 §2.3.1).
enum class TokenAuth { Post, Basic };

struct ProviderConfig {
  std::string name;  // google, github, microsoft
  ProfileShape shape = ProfileShape::Oidc;
  std::string clientId;
  std::string clientSecret;  // never logged
  std::string authorizeUrl;
  std::string tokenUrl;
  std::string userinfoUrl;
  std::string emailsUrl;  // GitHub only
  std::string scope;
  TokenAuth tokenAuth = TokenAuth::Post;
};

struct SocialOptions {
  std::map<std::string, ProviderConfig> providers;  // the configured ones only
  std::vector<std::string> redirectAllowlist;
  std::string caFile;
  std::int64_t timeoutSeconds = 10;

  // The providers Rapport knows, configured or not.
  static const std::vector<std::string>& knownProviders();

  // Throws std::invalid_argument naming the key on a bad setting (see above).
  static SocialOptions fromConfig(const rapport::Config& config);

  // nullptr when `name` is unknown or not configured.
  const ProviderConfig* find(const std::string& name) const;
  bool redirectAllowed(const std::string& uri) const;
};

// True when `url` is https, or http on a loopback address (decisions §5).
bool isAcceptedProviderUrl(const std::string& url);

}  // namespace rapport::host::accounts::social
