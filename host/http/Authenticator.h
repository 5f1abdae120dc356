// How the HTTP layer turns a bearer token into an Identity. Implemented by
// accounts::TokenService; the HTTP layer knows nothing else of accounts.
#pragma once

#include <optional>
#include <string>

#include "rapport/http.h"

namespace rapport::host {

class Authenticator {
 public:
  virtual ~Authenticator() = default;
  // The identity of a valid token: not expired, not revoked, and its user
  // still a member of its company. nullopt otherwise. Called on every
  // request that carries a token, from many threads at once: it must cost
  // no password hashing and at most one indexed lookup (cache hits none).
  virtual std::optional<Identity> authenticate(const std::string& bearerToken) = 0;
};

}  // namespace rapport::host
