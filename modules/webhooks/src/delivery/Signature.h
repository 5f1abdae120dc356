// The delivery signature (API "Signature", decisions §8): v1 is the hex
// HMAC-SHA256 of "<t>.<raw body>" keyed with the whole webhook secret
// ("whsec_..." as returned to the client, prefix included). After a
// rotation, for webhooks.rotation_overlap, an attempt carries one v1 per
// secret: the new one first, then the one it replaced.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rapport::webhooks {

// Lower-case hex HMAC-SHA256 of `message` under `key` (OpenSSL).
std::string hmacSha256Hex(std::string_view key, std::string_view message);

// The X-Service-Signature value: "t=<unixSeconds>,v1=<hex>".
std::string signatureHeader(std::string_view secret, std::int64_t unixSeconds,
                            std::string_view body);
// The same with one v1 per secret, in the order given (the current secret
// first): "t=<unixSeconds>,v1=<hex>,v1=<hex>". Throws std::invalid_argument
// for an empty list.
std::string signatureHeader(const std::vector<std::string>& secrets, std::int64_t unixSeconds,
                            std::string_view body);

}  // namespace rapport::webhooks
