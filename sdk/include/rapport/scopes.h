// Since 10.0. API key scopes (decisions §15, docs/api-keys.md).
//
// An API key holds a list of scopes; a route says what it needs in
// RouteOptions::scope (http.h). The host checks it before the handler runs,
// so a module declares its scope with its routes and writes no check of its
// own. The functions below are for the rare handler that reaches another
// resource's records by itself (the record engine's ?include=).
//
// The scopes: "<resource>:read" and "<resource>:write" of every record
// resource ("contacts", "companies", ... and each module's own), the
// scopes of no resource ("webhooks:manage", "events:read",
// "fields:manage", "imports:write", "exports:read"), and "*". A ":write"
// includes the ":read" of the same resource; "*" includes every scope.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rapport/export.h"
#include "rapport/http.h"

namespace rapport {

// RouteOptions::scope of a route every API key may call, whatever it holds.
inline constexpr std::string_view kAnyApiKey = "(any key)";
// The scope that holds every other one.
inline constexpr std::string_view kEveryScope = "*";

// The scope a route declared with `declared` needs for `method`:
// "contacts" + "GET" -> "contacts:read", + "POST" -> "contacts:write"; a
// declared "name:action" (or "*", or kAnyApiKey) as it is; "" stays "".
RAPPORT_SDK_API std::string requiredScope(std::string_view declared, std::string_view method);

// True when a key holding `held` may do what `needed` allows: it holds it,
// or "*", or the ":write" of a needed ":read"'s resource. kAnyApiKey is
// granted to every key; "" to none.
RAPPORT_SDK_API bool grantsScope(const std::vector<std::string>& held, std::string_view needed);

// Throws Error(403, "This API key lacks the scope <needed>.") when
// `identity` is an API key that grantsScope refuses; a user passes.
RAPPORT_SDK_API void requireScope(const Identity& identity, std::string_view needed);

// A well-formed RouteOptions::scope: "" or kAnyApiKey or "*", a scope name
// ("[a-z][a-z0-9_-]*", at most 50 characters), or a name, ':' and an action
// of the same alphabet.
RAPPORT_SDK_API bool isValidScopeDeclaration(std::string_view declared);

}  // namespace rapport
