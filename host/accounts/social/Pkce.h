// PKCE (RFC 7636) with the S256 method.
#pragma once

#include <string>

namespace rapport::host::accounts::social {

// A fresh code verifier: 32 random bytes, base64url (43 characters of the
// unreserved set, RFC 7636 §4.1).
std::string newCodeVerifier();
// BASE64URL(SHA256(verifier)) without padding (RFC 7636 §4.2).
std::string s256Challenge(const std::string& verifier);

}  // namespace rapport::host::accounts::social
