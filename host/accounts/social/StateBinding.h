// Binding a social-login state to the client that asked for it, so a state
// (and the code the provider attached to it) cannot be replayed by anyone
// else: a login CSRF that signs a victim's browser into the attacker's
// account, or a state read from a log or a Referer, is refused.
//
// The redirect step makes a random binding (256 bits), stores the SHA-256 of
// it and of the client's address key (ratelimit/ClientKey.h: the address as
// the host resolved it, trusted proxies included; IPv6 per /64) with the
// state, and sets the binding as a cookie:
//
//   rapport_social_binding=<binding>; Max-Age=600; Path=/<version>/auth/social;
//   HttpOnly; SameSite=Lax[; Secure]
//
// Secure is left out only for plain http on loopback (a developer's
// machine): the client address is a loopback address and no proxy said
// X-Forwarded-Proto: https. (rapportd itself speaks plain http; behind TLS
// a proxy sets X-Forwarded-Proto or the client is not on loopback.)
//
// At the callback: a request carrying the cookie must carry the state's
// binding; one without it (an API client that keeps no cookies) must come
// from the address key that asked for the state. Anything else is 422 on
// `state`, like an unknown state, and leaves the state to its own client.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "accounts/social/SocialStore.h"
#include "rapport/http.h"

namespace rapport::host::accounts::social {

inline constexpr const char* kBindingCookie = "rapport_social_binding";

struct NewBinding {
  std::string value;        // the cookie's value (never stored)
  std::string bindingHash;  // SHA-256 hex of value
  std::string clientHash;   // SHA-256 hex of the client's address key
};

NewBinding newBinding(const rapport::Request& req);

// The Set-Cookie value for `binding`, living `maxAgeSeconds`.
std::string bindingCookie(const rapport::Request& req, const std::string& value,
                          std::int64_t maxAgeSeconds);

// What the callback `req` presents (see above).
StateClaim claimOf(const rapport::Request& req);

// The value of cookie `name` in the request's Cookie header (RFC 6265
// §5.4: "a=1; b=2"), the first one when repeated; nullopt when absent.
std::optional<std::string> requestCookie(const rapport::Request& req, const std::string& name);

// True for 127.0.0.0/8, ::1 and their IPv4-mapped forms.
bool isLoopbackAddress(const std::string& address);

}  // namespace rapport::host::accounts::social
