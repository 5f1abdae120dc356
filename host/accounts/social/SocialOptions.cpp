#include "accounts/social/SocialOptions.h"

#include <Poco/Exception.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/URI.h>

#include <algorithm>
#include <stdexcept>

#include "rapport/validation.h"

namespace rapport::host::accounts::social {

namespace {

bool isLoopbackHost(const std::string& host) {
  if (rapport::toLower(host) == "localhost") return true;
  Poco::Net::IPAddress address;
  return Poco::Net::IPAddress::tryParse(host, address) && address.isLoopback();
}

std::string required(const rapport::Config& config, const std::string& key) {
  const std::string value = rapport::trim(config.getString(key, ""));
  if (value.empty()) throw std::invalid_argument(key + " must be set");
  return value;
}

std::string endpoint(const rapport::Config& config, const std::string& key) {
  const std::string url = required(config, key);
  if (!isAcceptedProviderUrl(url)) {
    throw std::invalid_argument(key +
                                " must be an https URL (http only on a loopback address): " + url);
  }
  return url;
}

// An allow-list entry: an absolute URI without a fragment (RFC 6749 §3.1.2).
void checkRedirectUri(const std::string& uri) {
  try {
    const Poco::URI parsed(uri);
    if (!parsed.getScheme().empty() && parsed.getFragment().empty() &&
        uri.find('#') == std::string::npos)
      return;
  } catch (const Poco::Exception&) {
  }
  throw std::invalid_argument(
      "social.redirect_allowlist entries must be absolute URIs without a fragment: " + uri);
}

}  // namespace

bool isAcceptedProviderUrl(const std::string& url) {
  try {
    const Poco::URI uri(url);
    if (uri.getHost().empty() || !uri.getUserInfo().empty() || !uri.getFragment().empty())
      return false;
    const std::string scheme = rapport::toLower(uri.getScheme());
    if (scheme == "https") return true;
    return scheme == "http" && isLoopbackHost(uri.getHost());
  } catch (const Poco::Exception&) {
    return false;
  }
}

const std::vector<std::string>& SocialOptions::knownProviders() {
  static const std::vector<std::string> names = {"google", "github", "microsoft"};
  return names;
}

SocialOptions SocialOptions::fromConfig(const rapport::Config& config) {
  SocialOptions o;
  o.redirectAllowlist = config.getList("social.redirect_allowlist", {});
  for (const auto& uri : o.redirectAllowlist) checkRedirectUri(uri);
  o.caFile = rapport::trim(config.getString("social.ca_file", ""));
  o.timeoutSeconds = config.getIntBetween("social.timeout", o.timeoutSeconds, 1, 120);
  for (const auto& name : knownProviders()) {
    const std::string prefix = "social." + name + ".";
    const std::string id = rapport::trim(config.getString(prefix + "client_id", ""));
    const std::string secret = config.getString(prefix + "client_secret", "");
    if (id.empty() && secret.empty()) continue;
    if (id.empty() || secret.empty()) {
      throw std::invalid_argument(prefix + "client_id and " + prefix +
                                  "client_secret must be set together");
    }
    ProviderConfig p;
    p.name = name;
    p.shape = name == "github" ? ProfileShape::GitHub : ProfileShape::Oidc;
    p.clientId = id;
    p.clientSecret = secret;
    p.authorizeUrl = endpoint(config, prefix + "authorize_url");
    p.tokenUrl = endpoint(config, prefix + "token_url");
    p.userinfoUrl = endpoint(config, prefix + "userinfo_url");
    if (p.shape == ProfileShape::GitHub) p.emailsUrl = endpoint(config, prefix + "emails_url");
    p.scope = required(config, prefix + "scope");
    const std::string auth = rapport::toLower(config.getString(prefix + "token_auth", "post"));
    if (auth == "post") {
      p.tokenAuth = TokenAuth::Post;
    } else if (auth == "basic") {
      p.tokenAuth = TokenAuth::Basic;
    } else {
      throw std::invalid_argument(prefix + "token_auth must be post or basic (got " + auth + ")");
    }
    o.providers.emplace(name, std::move(p));
  }
  // An empty allow-list is not refused here: the redirect step then answers
  // 422 on redirect_uri (decisions §5: a redirect_uri outside the list is a
  // 422), and the rest of the server works.
  return o;
}

const ProviderConfig* SocialOptions::find(const std::string& name) const {
  const auto it = providers.find(name);
  return it == providers.end() ? nullptr : &it->second;
}

bool SocialOptions::redirectAllowed(const std::string& uri) const {
  return std::find(redirectAllowlist.begin(), redirectAllowlist.end(), uri) !=
         redirectAllowlist.end();
}

}  // namespace rapport::host::accounts::social
