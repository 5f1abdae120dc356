// HMAC-SHA256 through OpenSSL's one-shot HMAC(), lower-case hex (Signature.h).
#include "delivery/Signature.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace rapport::webhooks {

std::string hmacSha256Hex(std::string_view key, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // HMAC() takes a null data pointer for an empty message; key likewise.
  static const unsigned char empty = 0;
  const auto* keyBytes = key.empty() ? &empty : reinterpret_cast<const unsigned char*>(key.data());
  const auto* data =
      message.empty() ? &empty : reinterpret_cast<const unsigned char*>(message.data());
  if (HMAC(EVP_sha256(), keyBytes, static_cast<int>(key.size()), data, message.size(), digest,
           &length) == nullptr)
    throw std::runtime_error("HMAC-SHA256 failed");
  static const char hex[] = "0123456789abcdef";
  std::string out(static_cast<std::size_t>(length) * 2, '0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = hex[digest[i] >> 4];
    out[2 * i + 1] = hex[digest[i] & 0x0F];
  }
  return out;
}

std::string signatureHeader(std::string_view secret, std::int64_t unixSeconds,
                            std::string_view body) {
  return signatureHeader(std::vector<std::string>{std::string(secret)}, unixSeconds, body);
}

std::string signatureHeader(const std::vector<std::string>& secrets, std::int64_t unixSeconds,
                            std::string_view body) {
  if (secrets.empty()) throw std::invalid_argument("a signature needs at least one secret");
  const std::string t = std::to_string(unixSeconds);
  std::string signedPayload;
  signedPayload.reserve(t.size() + 1 + body.size());
  signedPayload.append(t).append(".").append(body);
  // Every v1 signs the same "<t>.<body>": a receiver holding either secret
  // finds its own among them.
  std::string header = "t=" + t;
  for (const std::string& secret : secrets) {
    header.append(",v1=").append(hmacSha256Hex(secret, signedPayload));
  }
  return header;
}

}  // namespace rapport::webhooks
