#include "accounts/PasswordHasher.h"

#include <argon2.h>
#include <openssl/rand.h>

#include <array>
#include <charconv>
#include <optional>
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
constexpr std::uint32_t kMaxConcurrent = 1024;
constexpr std::uint32_t kMaxQueueTimeoutMs = 60000;

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
  requireRange("auth.argon2.max_concurrent", maxConcurrent, 0, kMaxConcurrent);
  requireRange("auth.argon2.queue_timeout", queueTimeoutMs, 0, kMaxQueueTimeoutMs);
}

PasswordHasher::PasswordHasher(Argon2Params params) : params_(params) {
  params_.validate();
  gate_ = std::make_unique<passwords::HashingGate>(
      params_.maxConcurrent, std::chrono::milliseconds(params_.queueTimeoutMs));
  // Same parameters as real hashes, so burn() costs what a real verify costs.
  dummyHash_ = hash("rapport-dummy-password-for-timing");
}

std::string PasswordHasher::hash(std::string_view password) const {
  const auto salt = randomSalt();
  const auto permit = gate_->enter();
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
  const auto permit = gate_->enter();
  return argon2id_verify(encoded.c_str(), password.data(), password.size()) == ARGON2_OK;
}

void PasswordHasher::burn(std::string_view password) const {
  // The result is meaningless; only the time spent matters.
  static_cast<void>(verify(password, dummyHash_));
}

namespace {

// "m=19456" -> 19456 when `part` is `name`=<digits>; nullopt otherwise.
std::optional<std::uint32_t> phcNumber(std::string_view part, std::string_view name) {
  if (part.size() <= name.size() + 1 || part.substr(0, name.size()) != name ||
      part[name.size()] != '=') {
    return std::nullopt;
  }
  const std::string_view digits = part.substr(name.size() + 1);
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// The '$'-separated fields of a PHC string ("$a$b" -> {"", "a", "b"}).
std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

bool PasswordHasher::needsRehash(const std::string& encoded) const {
  // $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
  const std::vector<std::string_view> fields = split(encoded, '$');
  if (fields.size() != 6 || !fields[0].empty() || fields[1] != "argon2id") return true;
  if (phcNumber(fields[2], "v") !=
      std::optional(static_cast<std::uint32_t>(ARGON2_VERSION_NUMBER))) {
    return true;
  }
  const std::vector<std::string_view> costs = split(fields[3], ',');
  if (costs.size() != 3) return true;
  return phcNumber(costs[0], "m") != std::optional(params_.memoryKib) ||
         phcNumber(costs[1], "t") != std::optional(params_.iterations) ||
         phcNumber(costs[2], "p") != std::optional(params_.parallelism);
}

}  // namespace rapport::host::accounts
