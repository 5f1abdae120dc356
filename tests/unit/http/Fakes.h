// Test doubles for the HTTP layer: an in-memory Config and an Authenticator
// that knows a fixed set of tokens.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "http/Authenticator.h"
#include "rapport/config.h"
#include "rapport/http.h"

namespace rapport::test {

// Options of a route anyone may call (no token needed).
inline rapport::RouteOptions publicAccess() {
  rapport::RouteOptions options;
  options.access = rapport::Access::Public;
  return options;
}

class FakeConfig : public rapport::Config {
 public:
  FakeConfig() = default;
  FakeConfig(std::initializer_list<std::pair<const std::string, std::string>> values)
      : values_(values) {}

  void set(const std::string& key, const std::string& value) { values_[key] = value; }

  bool has(const std::string& key) const override { return values_.count(key) > 0; }
  std::string getString(const std::string& key, const std::string& fallback) const override {
    auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
  }
  std::int64_t getInt(const std::string& key, std::int64_t fallback) const override {
    auto it = values_.find(key);
    return it == values_.end() ? fallback : std::stoll(it->second);
  }
  bool getBool(const std::string& key, bool fallback) const override {
    auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second == "true";
  }

 private:
  std::map<std::string, std::string> values_;
};

// Tokens: "member-token" (user_m, tok_m), "member-token-2" (user_m, tok_m2),
// "admin-token" (user_a, tok_a, admin), "owner-token" (user_o, tok_o, owner).
// Read-only after construction, so safe from many threads.
class FakeAuthenticator : public rapport::host::Authenticator {
 public:
  FakeAuthenticator() {
    add("member-token", "user_m", "tok_m", rapport::Role::Member);
    add("member-token-2", "user_m", "tok_m2", rapport::Role::Member);
    add("admin-token", "user_a", "tok_a", rapport::Role::Admin);
    add("owner-token", "user_o", "tok_o", rapport::Role::Owner);
  }

  // An API key of comp_1 (id `keyId`) holding `scopes`, presented as `token`.
  void addKey(const std::string& token, const std::string& keyId, std::vector<std::string> scopes) {
    rapport::Identity identity;
    identity.authenticated = true;
    identity.companyId = "comp_1";
    identity.role = rapport::Role::Admin;
    identity.tokenId = keyId;
    identity.principal = rapport::Principal::ApiKey;
    identity.scopes = std::move(scopes);
    identities_[token] = identity;
  }

  std::optional<rapport::Identity> authenticate(const std::string& bearerToken) override {
    auto it = identities_.find(bearerToken);
    if (it == identities_.end()) return std::nullopt;
    return it->second;
  }

 private:
  void add(const std::string& token, const std::string& user, const std::string& tokenId,
           rapport::Role role) {
    rapport::Identity identity;
    identity.authenticated = true;
    identity.userId = user;
    identity.companyId = "comp_1";
    identity.role = role;
    identity.tokenId = tokenId;
    identities_[token] = identity;
  }

  std::map<std::string, rapport::Identity> identities_;
};

}  // namespace rapport::test
