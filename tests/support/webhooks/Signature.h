// The webhook signature as a receiver checks it (docs/modules/webhooks.md,
// "Verifying a signature"): X-Service-Signature is "t=<unix>,v1=<hex>", v1
// the HMAC-SHA256 of "<t>.<raw body>" keyed with the webhook's secret,
// computed here by `openssl dgst` (never with the server's code). During a
// rotation's overlap it carries two v1: "t=<unix>,v1=<new>,v1=<old>".
#pragma once

#include <string>
#include <vector>

#include "support/TestCa.h"
#include "support/webhooks/Receiver.h"

namespace rapport::test::webhooks {

// t and v1 of an X-Service-Signature value "t=<unix>,v1=<hex>[,v1=<hex>]..."
// (all empty when the value does not have exactly that shape): `v1` is the
// first signature, `v1s` all of them in order.
struct SignatureParts {
  std::string t;
  std::string v1;
  std::vector<std::string> v1s;
};

inline SignatureParts parseSignature(const std::string& header) {
  const auto digits = [](const std::string& text, const char* alphabet) {
    return !text.empty() && text.find_first_not_of(alphabet) == std::string::npos;
  };
  SignatureParts parts;
  const auto comma = header.find(',');
  if (header.rfind("t=", 0) != 0 || comma == std::string::npos) return {};
  parts.t = header.substr(2, comma - 2);
  if (!digits(parts.t, "0123456789")) return {};
  std::size_t at = comma + 1;
  while (true) {
    const auto next = header.find(',', at);
    const std::string item = header.substr(at, next == std::string::npos ? next : next - at);
    if (item.rfind("v1=", 0) != 0) return {};
    const std::string v1 = item.substr(3);
    if (!digits(v1, "0123456789abcdef") || v1.size() != 64) return {};
    parts.v1s.push_back(v1);
    if (next == std::string::npos) break;
    at = next + 1;
  }
  parts.v1 = parts.v1s.front();
  return parts;
}

// Whether `request` carries a v1 signature (any of them) that `openssl dgst
// -hmac secret` computes over "t.<raw body>".
inline bool signedWith(const ReceivedRequest& request, const std::string& secret) {
  const SignatureParts parts = parseSignature(request.header("X-Service-Signature"));
  if (parts.t.empty()) return false;
  const std::string expected = opensslHmacSha256(secret, parts.t + "." + request.body);
  for (const std::string& v1 : parts.v1s) {
    if (v1 == expected) return true;
  }
  return false;
}

}  // namespace rapport::test::webhooks
