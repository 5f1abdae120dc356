// Identifiers, tokens and hashes from OpenSSL's CSPRNG and digests.
#include "rapport/ids.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <climits>
#include <stdexcept>
#include <vector>

namespace rapport {
namespace {

constexpr std::size_t kIdBytes = 16;  // 128 bits: unguessable, never reused in practice

std::vector<unsigned char> randomBytes(std::size_t count) {
  std::vector<unsigned char> bytes(count);
  if (count > static_cast<std::size_t>(INT_MAX)) throw std::length_error("randomBytes: too many");
  if (count > 0 && RAND_bytes(bytes.data(), static_cast<int>(count)) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  return bytes;
}

// RFC 4648 base32, lower-case, no padding: 5 bits per character, the last
// character zero-padded. Case-insensitive and safe in URLs and file names.
std::string base32(const std::vector<unsigned char>& bytes) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  out.reserve((bytes.size() * 8 + 4) / 5);
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char byte : bytes) {
    buffer = ((buffer << 8) | byte) & 0xFFFF;  // at most 13 bits are pending
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push_back(kAlphabet[(buffer >> bits) & 0x1F]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (5 - bits)) & 0x1F]);
  return out;
}

// RFC 4648 base64url, no padding.
std::string base64url(const std::vector<unsigned char>& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char byte : bytes) {
    buffer = ((buffer << 8) | byte) & 0xFFFF;  // at most 13 bits are pending
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(kAlphabet[(buffer >> bits) & 0x3F]);
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (6 - bits)) & 0x3F]);
  return out;
}

// SHA-256 fetched once. With EVP_sha256(), EVP_Digest fetches the
// implementation again on every call (OpenSSL 3), through the provider store's
// lock shared by all threads: a cost on every authenticated request.
const EVP_MD* sha256() {
  static const EVP_MD* const fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return fetched != nullptr ? fetched : EVP_sha256();
}

}  // namespace

std::string newId(std::string_view prefix) {
  return std::string(prefix) + base32(randomBytes(kIdBytes));
}

bool hasPrefix(std::string_view id, std::string_view prefix) {
  return id.size() > prefix.size() && id.substr(0, prefix.size()) == prefix;
}

std::string randomToken(std::size_t bytes) {
  return base64url(randomBytes(bytes));
}

std::string sha256Hex(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &length, sha256(), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest(SHA-256) failed");
  }
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xF]);
  }
  return out;
}

// The length is not secret (tokens have fixed lengths), so a mismatch may
// return early; the bytes are compared in constant time.
bool constantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace rapport
