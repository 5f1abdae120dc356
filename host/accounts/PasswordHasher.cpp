#include "accounts/PasswordHasher.h"

#include <argon2.h>
#include <openssl/rand.h>

#include <array>
#include <stdexcept>
#include <vector>

namespace rapport::host::accounts {

namespace {

constexpr std::size_t kSaltBytes = 16;
constexpr std::size_t kHashBytes = 32;

// OWASP's minimum for argon2id (m=19 MiB, t=2, p=1). The upper bounds only
// catch typos that would make every login allocate gigabytes or spin.
constexpr std::uint32_t kMinMemoryKib = 19456;
constexpr std::uint32_t kMaxMemoryKib = 4u * 1024 * 1024;
constexpr std::uint32_t kMinIterations = 2;
constexpr std::uint32_t kMaxIterations = 1000;
constexpr std::uint32_t kMinParallelism = 1;
constexpr std::uint32_t kMaxParallelism = 255;

void requireRange(const char* key, std::uint32_t value, std::uint32_t min, std::uint32_t max) {
  if (value < min || value > max) {
    throw std::invalid_argument(std::string(key) + " must be between " + std::to_string(min) +
                                " and " + std::to_string(max) + " (got " + std::to_string(value) +
                                ")");
  }
}

std::array<unsigned char, kSaltBytes> randomSalt() {
  std::array<unsigned char, kSaltBytes> salt{};
  if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1) {
    throw std::runtime_error("password hashing: the CSPRNG failed");
  }
  return salt;
}

}  // namespace

void Argon2Params::validate() const {
  requireRange("auth.argon2.memory_kib", memoryKib, kMinMemoryKib, kMaxMemoryKib);
  requireRange("auth.argon2.iterations", iterations, kMinIterations, kMaxIterations);
  requireRange("auth.argon2.parallelism", parallelism, kMinParallelism, kMaxParallelism);
}

PasswordHasher::PasswordHasher(Argon2Params params) : params_(params) {
  params_.validate();
  // Same parameters as real hashes, so burn() costs what a real verify costs.
  dummyHash_ = hash("rapport-dummy-password-for-timing");
}

std::string PasswordHasher::hash(std::string_view password) const {
  const auto salt = randomSalt();
  std::vector<char> encoded(argon2_encodedlen(params_.iterations, params_.memoryKib,
                                              params_.parallelism, kSaltBytes, kHashBytes,
                                              Argon2_id));
  const int rc = argon2id_hash_encoded(params_.iterations, params_.memoryKib, params_.parallelism,
                                       password.data(), password.size(), salt.data(), salt.size(),
                                       kHashBytes, encoded.data(), encoded.size());
  if (rc != ARGON2_OK) {
    throw std::runtime_error(std::string("password hashing failed: ") + argon2_error_message(rc));
  }
  return std::string(encoded.data());
}

bool PasswordHasher::verify(std::string_view password, const std::string& encoded) const {
  // libargon2 decodes and checks the string itself; any decoding error is a
  // plain mismatch for the caller.
  return argon2id_verify(encoded.c_str(), password.data(), password.size()) == ARGON2_OK;
}

void PasswordHasher::burn(std::string_view password) const {
  // The result is meaningless; only the time spent matters.
  static_cast<void>(verify(password, dummyHash_));
}

}  // namespace rapport::host::accounts
