#include "app/Settings.h"

#include <Poco/AutoPtr.h>
#include <Poco/File.h>
#include <Poco/String.h>
#include <Poco/Util/PropertyFileConfiguration.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>
#include <stdexcept>

#include "loader/ModuleLists.h"

namespace rapport::host {
namespace {

#ifndef RAPPORT_DEFAULT_MODULES
#define RAPPORT_DEFAULT_MODULES ""
#endif

// The identity providers of social login and their real endpoints (decisions
// §5 and §12: each URL is configurable so tests can use a local provider).
struct ProviderDefaults {
  const char* name;
  const char* authorizeUrl;
  const char* tokenUrl;
  const char* userinfoUrl;
  const char* scope;      // social.<p>.scope
  const char* emailsUrl;  // GitHub's verified e-mails (others: none)
};
const ProviderDefaults kProviders[] = {
    {"google", "https://accounts.google.com/o/oauth2/v2/auth",
     "https://oauth2.googleapis.com/token", "https://openidconnect.googleapis.com/v1/userinfo",
     "openid email profile", nullptr},
    {"github", "https://github.com/login/oauth/authorize",
     "https://github.com/login/oauth/access_token", "https://api.github.com/user",
     "read:user user:email", "https://api.github.com/user/emails"},
    {"microsoft", "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
     "https://login.microsoftonline.com/common/oauth2/v2.0/token",
     "https://graph.microsoft.com/oidc/userinfo", "openid email profile", nullptr},
};

std::vector<SettingInfo> buildKnown() {
  std::vector<SettingInfo> k = {
      {"server.host", "127.0.0.1", "listen address"},
      {"server.port", "8080", "listen port (0 picks a free port, logged at start-up)"},
      {"server.io_threads", "0",
       "I/O threads reading and writing connections (0: one per two cores, 1 to 4)"},
      {"server.threads", "32", "worker threads running requests"},
      {"server.max_queued", "4096", "complete requests waiting for a worker (503 beyond)"},
      {"server.keep_alive_timeout", "5", "seconds an idle keep-alive connection stays open"},
      {"server.header_timeout", "10",
       "seconds for a whole request head (from the accept, or from its first byte); 408"},
      {"server.body_timeout", "10",
       "seconds for a whole request body (from the end of its head), however steadily it "
       "arrives; 408"},
      {"server.send_timeout", "10",
       "seconds a client may leave an answer unread before the connection closes"},
      {"server.max_connections", "10000",
       "open connections; beyond, the least recently active idle one closes, else the slowest "
       "body (503 if neither)"},
      {"server.max_connections_per_address", "0",
       "open connections per client address (0: no cap); 503 beyond"},
      {"server.max_body_bytes", "1048576", "largest request body (413 above)"},
      {"server.trusted_proxies", "",
       "comma-separated addresses or CIDRs whose X-Forwarded-For names the client (empty: "
       "ignored)"},
      {"database.url", "sqlite:data/rapport.db",
       "sqlite:PATH or postgresql://user:pass@host:port/db"},
      {"database.pool_size", "16", "database sessions at most"},
      {"database.acquire_timeout_ms", "5000", "wait for a free session before failing"},
      {"database.sqlite_busy_timeout_ms", "5000", "SQLite lock wait"},
      {"database.sqlite_synchronous", "full",
       "full: a 201 survives a power loss; normal: a process crash only"},
      {"database.lock_timeout_ms", "5000",
       "PostgreSQL lock wait per statement, then 503 (0 = wait forever)"},
      {"database.query_timeout_ms", "1000",
       "deadline of a record list's statements (a filter no index serves), then 503 "
       "(0 = none)"},
      {"modules.dir", "modules beside rapportd",
       "folders holding rapport_<name>.so (':' separated)"},
      {"modules.enabled", RAPPORT_DEFAULT_MODULES, "comma-separated module names"},
      {"auth.token_ttl", "3600", "access token lifetime, seconds"},
      {"auth.remember_ttl", "2592000", "lifetime with remember_me, seconds"},
      {"auth.token_cache_ttl", "10",
       "seconds before a cached identity is re-read (the bound when revocation notices are down)"},
      {"auth.refresh_grace", "60", "seconds the old token keeps working after a refresh"},
      {"auth.max_session_age", "7776000",
       "seconds a login lasts at most, refreshes included (90 days); then log in again"},
      {"auth.two_factor_status", "403", "status of a login that needs 2FA (403 or 200)"},
      {"auth.two_factor.challenge_ttl", "600", "seconds a 2FA login challenge lives"},
      {"auth.argon2.memory_kib", "19456", "argon2id memory cost (OWASP minimum 19456)"},
      {"auth.argon2.iterations", "2", "argon2id time cost (minimum 2)"},
      {"auth.argon2.parallelism", "1", "argon2id lanes"},
      {"auth.argon2.max_concurrent", "0",
       "argon2 computations at once (0: the number of cores); others wait"},
      {"auth.argon2.queue_timeout", "5000",
       "milliseconds a password check waits for its turn, then 503 with Retry-After: 1"},
      {"auth.reset_ttl", "3600", "seconds a password reset token is valid"},
      {"auth.reset_url", "",
       "link in the reset mail, with {token} and {email} (unset: the mail shows the token)"},
      {"auth.reset.forgot_max_requests", "5",
       "forgot-password requests per client address per window"},
      {"auth.reset.forgot_window", "3600", "window of auth.reset.forgot_max_requests, seconds"},
      {"auth.reset.max_attempts", "10", "wrong reset tokens per client address per window"},
      {"auth.reset.window", "3600", "window of auth.reset.max_attempts, seconds"},
      {"auth.reset.min_interval", "60",
       "seconds between two reset mails to one user (0: no pause)"},
      {"auth.email_verification_ttl", "86400", "seconds an e-mail verification token is valid"},
      {"auth.email_verification_url", "",
       "link in the verification mail, with {token} and {email} (unset: the mail shows the "
       "token)"},
      {"auth.email_verification.max_requests", "5",
       "verification mails asked per user, and per client address, per window"},
      {"auth.email_verification.window", "3600",
       "window of the e-mail verification limits, seconds"},
      {"auth.email_verification.max_attempts", "10",
       "wrong verification tokens per client address per window"},
      {"auth.token_cache_size", "100000", "tokens kept in the in-memory cache at most"},
      {"auth.login.max_attempts", "5", "failed logins per e-mail and client address per window"},
      {"auth.login.window", "60", "login throttle window, seconds"},
      {"auth.login.account_max_attempts", "20",
       "failed logins per e-mail from any address before the account is slowed"},
      {"auth.login.account_window", "600", "window of auth.login.account_max_attempts, seconds"},
      {"auth.login.account_interval", "30",
       "a slowed account admits one login attempt per this many seconds"},
      {"ratelimit.requests", "60", "requests per window per token (or client address)"},
      {"ratelimit.window", "60", "rate-limit window, seconds"},
      {"ratelimit.store", "memory",
       "memory (one instance) or redis (rate limits and login throttle shared through redis.url)"},
      {"ratelimit.on_store_error", "deny_auth",
       "when the store cannot count (redis down): allow, deny (503), or deny_auth (503 on the "
       "public /v1/auth/ routes but refresh, served elsewhere)"},
      {"redis.url", "redis://127.0.0.1:6379",
       "redis://[:password@]host:port[/db] of the shared store (ratelimit.store=redis)"},
      {"mail.outbox", "data/outbox", "folder for .eml files when no SMTP host is set"},
      {"mail.smtp.host", "", "SMTP server (unset: write to mail.outbox)"},
      {"mail.smtp.port", "25", "SMTP port"},
      {"mail.smtp.username", "", "SMTP AUTH user (unset: no AUTH; only sent over STARTTLS)"},
      {"mail.smtp.password", "", "SMTP AUTH password (set with mail.smtp.username)"},
      {"mail.smtp.starttls", "auto",
       "auto (use when offered), required (never send in clear) or off"},
      {"mail.smtp.ca_file", "",
       "extra trusted CA (PEM) for the SMTP server's certificate (system store otherwise)"},
      {"mail.smtp.timeout", "10", "seconds for the SMTP connect and each read or write"},
      {"mail.queue_size", "1000", "mails waiting to be sent at most (further ones are dropped)"},
      {"mail.retry_schedule", "0,30,120,600,1800",
       "seconds before each attempt of a mail (the first is the first try)"},
      {"mail.from", "no-reply@localhost", "sender address"},
      {"events.retention_days", "30", "days the event log keeps an event"},
      {"idempotency.keep_hours", "24",
       "hours an Idempotency-Key and its answer are kept (1 to 720)"},
      {"idempotency.lease_seconds", "60",
       "seconds before a repeat may take over a keyed request whose instance died (5 to 3600)"},
      {"secrets.key", "", "base64 of 32 bytes sealing stored secrets (unset: secrets.key_file)"},
      {"secrets.key_file", "data/secret.key",
       "file holding the sealing key; created (mode 0600) when missing"},
      {"social.redirect_allowlist", "", "comma-separated exact redirect URIs"},
      {"social.ca_file", "", "extra trusted CA (PEM) for identity providers"},
      {"social.timeout", "10", "seconds per request to an identity provider"},
      {"versions", "v1", "comma-separated API versions listed by GET /v1/versions"},
      {"deprecations", "", "comma-separated names of deprecation rules (deprecations.<name>.*)"},
      {"log.level", "info", "debug, info, warn or error"},
      {"log.format", "text", "text (key=value) or json (one object per line)"},
      {"metrics.listen", "",
       "host:port of the Prometheus GET /metrics listener (unset: no listener)"},
      {"api.check_responses", "false",
       "true: a 2xx answer that disagrees with its route's description is a 500 (tests)"},
  };
  for (const auto& p : kProviders) {
    const std::string prefix = std::string("social.") + p.name + ".";
    k.push_back({prefix + "client_id", "", std::string("OAuth2 client id at ") + p.name});
    k.push_back({prefix + "client_secret", "", std::string("OAuth2 client secret at ") + p.name});
    k.push_back({prefix + "authorize_url", p.authorizeUrl, "authorization endpoint"});
    k.push_back({prefix + "token_url", p.tokenUrl, "token endpoint"});
    k.push_back({prefix + "userinfo_url", p.userinfoUrl, "user-info endpoint"});
    if (p.emailsUrl) k.push_back({prefix + "emails_url", p.emailsUrl, "e-mail list endpoint"});
    k.push_back({prefix + "scope", p.scope, "space-separated scopes requested"});
    k.push_back({prefix + "token_auth", "post",
                 "client authentication at the token endpoint: post or basic"});
  }
  return k;
}

// Keys that belong to each name of a list-valued key ("versions" -> v1, v2).
std::vector<std::string> perNameKeys(const std::string& list, const std::string& name) {
  if (list == "versions") {
    return {"status", "released_at", "deprecated_at", "sunset_at", "docs_url", "link", "successor"};
  }
  (void)name;
  return {"prefix", "deprecated_at", "sunset_at", "link", "successor"};
}

// Values masked by --print-config. A path to a secret ("secrets.key_file")
// is not itself one, and an operator checking the configuration needs it.
bool isSecretKey(const std::string& key) {
  const bool isPath = key.size() > 5 && key.compare(key.size() - 5, 5, "_file") == 0;
  return !isPath &&
         (key.find("secret") != std::string::npos || key.find("password") != std::string::npos);
}

std::string maskUrlPassword(const std::string& url) {
  auto scheme = url.find("://");
  auto at = url.find('@');
  if (scheme == std::string::npos || at == std::string::npos) return url;
  auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

}  // namespace

std::string environmentName(const std::string& key) {
  std::string out = "RAPPORT_";
  for (char c : key) {
    out.push_back((c == '.' || c == '-') ? '_' : static_cast<char>(std::toupper(c)));
  }
  return out;
}

const std::vector<SettingInfo>& Settings::known() {
  static const std::vector<SettingInfo> table = buildKnown();
  return table;
}

Settings Settings::load(const std::string& file, char** env) {
  Settings s;
  for (const auto& info : known()) {
    if (!info.defaultValue.empty() && info.key != "modules.dir") {
      s.values_[info.key] = info.defaultValue;
    }
  }
  if (!file.empty()) {
    if (!Poco::File(file).exists()) {
      throw std::runtime_error("configuration file not found: " + file);
    }
    Poco::AutoPtr<Poco::Util::PropertyFileConfiguration> props(
        new Poco::Util::PropertyFileConfiguration(file));
    // Walk the key tree: properties files nest keys by their dots.
    std::vector<std::string> pending{""};
    while (!pending.empty()) {
      std::string prefix = pending.back();
      pending.pop_back();
      Poco::Util::AbstractConfiguration::Keys children;
      props->keys(prefix, children);
      for (const auto& child : children) {
        std::string full = prefix.empty() ? child : prefix + "." + child;
        if (props->hasProperty(full)) s.values_[full] = Poco::trim(props->getRawString(full));
        pending.push_back(full);
      }
    }
    s.file_ = file;
  }

  std::map<std::string, std::string> environment;
  for (char** e = env; e && *e; ++e) {
    std::string entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string::npos || entry.rfind("RAPPORT_", 0) != 0) continue;
    environment[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  std::set<std::string> used;
  auto apply = [&](const std::string& key) {
    auto it = environment.find(environmentName(key));
    if (it != environment.end()) {
      s.values_[key] = it->second;
      used.insert(it->first);
    }
  };
  std::set<std::string> keys;
  for (const auto& info : known()) keys.insert(info.key);
  for (const auto& [key, value] : s.values_) keys.insert(key);
  for (const auto& key : keys) apply(key);
  // Second pass: the per-name keys of list-valued settings, now that the
  // lists themselves may have come from the environment.
  for (const std::string list : {"versions", "deprecations"}) {
    for (const auto& name : splitList(s.get(list))) {
      for (const auto& field : perNameKeys(list, name)) apply(list + "." + name + "." + field);
    }
  }
  for (const auto& [name, value] : environment) {
    if (used.count(name) || name == "RAPPORT_CONFIG" || name.rfind("RAPPORT_TEST_", 0) == 0) {
      continue;
    }
    s.unknownEnv_.push_back(name);
  }
  s.environment_ = std::move(environment);
  return s;
}

void Settings::declare(const std::vector<rapport::ConfigKey>& keys) {
  for (const rapport::ConfigKey& key : keys) {
    declared_.insert(key.name);
    if (key.secret) secrets_.insert(key.name);
    const std::string variable = environmentName(key.name);
    if (auto it = environment_.find(variable); it != environment_.end()) {
      values_[key.name] = it->second;
      std::erase(unknownEnv_, variable);
    }
    // Unset and empty alike: the module's declared default (its one source).
    if (get(key.name).empty() && !key.defaultValue.empty()) values_[key.name] = key.defaultValue;
  }
}

bool Settings::isHostKey(const std::string& key) const {
  static const std::set<std::string> table = [] {
    std::set<std::string> keys;
    for (const auto& info : known()) keys.insert(info.key);
    return keys;
  }();
  if (table.count(key)) return true;
  for (const std::string list : {"versions", "deprecations"}) {
    if (key.rfind(list + ".", 0) != 0) continue;
    for (const auto& name : splitList(get(list))) {
      for (const auto& field : perNameKeys(list, name)) {
        if (key == list + "." + name + "." + field) return true;
      }
    }
  }
  return false;
}

std::vector<std::string> Settings::unknownKeys() const {
  std::vector<std::string> unknown;
  for (const auto& [key, value] : values_) {
    if (!isHostKey(key) && !isDeclared(key)) unknown.push_back(key);
  }
  return unknown;
}

bool Settings::has(const std::string& key) const {
  auto it = values_.find(key);
  return it != values_.end() && !it->second.empty();
}

std::string Settings::get(const std::string& key) const {
  auto it = values_.find(key);
  return it == values_.end() ? std::string() : it->second;
}

std::string Settings::getString(const std::string& key, const std::string& fallback) const {
  return has(key) ? get(key) : fallback;
}

std::int64_t Settings::getInt(const std::string& key, std::int64_t fallback) const {
  if (!has(key)) return fallback;
  std::string text = Poco::trim(get(key));
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument("configuration key " + key + " must be an integer, got '" +
                                get(key) + "'");
  }
  return value;
}

bool Settings::getBool(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  std::string v = Poco::toLower(Poco::trim(get(key)));
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  throw std::invalid_argument("configuration key " + key + " must be true or false, got '" +
                              get(key) + "'");
}

std::vector<std::pair<std::string, std::string>> Settings::effective() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : values_) {
    if ((isSecretKey(key) || secrets_.count(key)) && !value.empty()) {
      out.emplace_back(key, "***");
    } else if (key == "database.url" || key == "redis.url") {
      out.emplace_back(key, maskUrlPassword(value));
    } else {
      out.emplace_back(key, value);
    }
  }
  return out;
}

}  // namespace rapport::host
