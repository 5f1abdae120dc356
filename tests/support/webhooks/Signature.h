// The webhook signature as a receiver checks it (docs/modules/webhooks.md,
// "Verifying a signature"): X-Service-Signature is "t=<unix>,v1=<hex>", v1
// the HMAC-SHA256 of "<t>.<raw body>" keyed with the webhook's secret,
// computed here by `openssl dgst` (never with the server's code).
#pragma once

#include <string>

#include "support/TestCa.h"
#include "support/webhooks/Receiver.h"

namespace rapport::test::webhooks {

// t and v1 of an X-Service-Signature value "t=<unix>,v1=<hex>" (empty when
// the value does not have exactly that shape).
struct SignatureParts {
  std::string t;
  std::string v1;
};

inline SignatureParts parseSignature(const std::string& header) {
  SignatureParts parts;
  const auto comma = header.find(',');
  if (header.rfind("t=", 0) != 0 || comma == std::string::npos) return {};
  parts.t = header.substr(2, comma - 2);
  const std::string rest = header.substr(comma + 1);
  if (rest.rfind("v1=", 0) != 0) return {};
  parts.v1 = rest.substr(3);
  const auto digits = [](const std::string& text, const char* alphabet) {
    return !text.empty() && text.find_first_not_of(alphabet) == std::string::npos;
  };
  if (!digits(parts.t, "0123456789") || !digits(parts.v1, "0123456789abcdef") ||
      parts.v1.size() != 64) {
    return {};
  }
  return parts;
}

// Whether `request` carries a v1 signature that `openssl dgst -hmac secret`
// computes over "t.<raw body>".
inline bool signedWith(const ReceivedRequest& request, const std::string& secret) {
  const SignatureParts parts = parseSignature(request.header("X-Service-Signature"));
  if (parts.t.empty()) return false;
  return opensslHmacSha256(secret, parts.t + "." + request.body) == parts.v1;
}

}  // namespace rapport::test::webhooks
