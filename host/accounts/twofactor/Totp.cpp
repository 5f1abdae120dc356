#include "accounts/twofactor/Totp.h"

#include <liboath/oath.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "http/UrlCoding.h"

namespace rapport::host::accounts::twofactor {

namespace {

// liboath wants oath_init() once per process before any other call.
void ensureOathReady() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (oath_init() != OATH_OK) throw std::runtime_error("liboath initialisation failed");
  });
}

struct OathFree {
  void operator()(char* p) const { std::free(p); }
};
using OathBuffer = std::unique_ptr<char, OathFree>;

// liboath's validation loop calls this with each candidate code; 0 means
// "match". The comparison runs in constant time (both are 6 digits).
int compareCode(void* handle, const char* candidate) {
  const std::string& code = *static_cast<const std::string*>(handle);
  return CRYPTO_memcmp(code.data(), candidate, static_cast<std::size_t>(kTotpDigits)) == 0 ? 0 : 1;
}

}  // namespace

std::string newTotpSecret() {
  ensureOathReady();
  unsigned char raw[kTotpSecretBytes];
  if (RAND_bytes(raw, kTotpSecretBytes) != 1) throw std::runtime_error("RAND_bytes failed");
  char* encoded = nullptr;
  std::size_t length = 0;
  const int rc =
      oath_base32_encode(reinterpret_cast<const char*>(raw), kTotpSecretBytes, &encoded, &length);
  OPENSSL_cleanse(raw, sizeof raw);
  OathBuffer owned(encoded);
  if (rc != OATH_OK) throw std::runtime_error("base32 encoding failed");
  std::string secret(encoded, length);
  // 20 bytes are exactly 32 characters: no padding to strip, but be sure.
  while (!secret.empty() && secret.back() == '=') secret.pop_back();
  return secret;
}

std::int64_t totpStep(std::int64_t unixSeconds) {
  return unixSeconds / kTotpPeriod;
}

bool isSixDigits(const std::string& code) {
  if (code.size() != static_cast<std::size_t>(kTotpDigits)) return false;
  for (char c : code) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::optional<std::int64_t> matchTotp(const std::string& secretBase32, const std::string& code,
                                      std::int64_t unixSeconds) {
  if (!isSixDigits(code)) return std::nullopt;
  ensureOathReady();
  char* decoded = nullptr;
  std::size_t length = 0;
  if (oath_base32_decode(secretBase32.data(), secretBase32.size(), &decoded, &length) != OATH_OK) {
    throw std::runtime_error("stored TOTP secret does not decode");
  }
  OathBuffer secret(decoded);
  int position = 0;
  std::uint64_t counter = 0;
  std::string candidate = code;
  const int rc = oath_totp_validate4_callback(decoded, length, static_cast<time_t>(unixSeconds),
                                              kTotpPeriod, 0, kTotpDigits, kTotpDrift, &position,
                                              &counter, 0, compareCode, &candidate);
  OPENSSL_cleanse(decoded, length);
  if (rc < 0) return std::nullopt;  // OATH_INVALID_OTP, or no match in the window
  return static_cast<std::int64_t>(counter);
}

std::string otpauthUri(const std::string& email, const std::string& secretBase32) {
  return "otpauth://totp/Rapport:" + percentEncode(email) + "?secret=" + secretBase32 +
         "&issuer=Rapport&algorithm=SHA1&digits=6&period=30";
}

}  // namespace rapport::host::accounts::twofactor
