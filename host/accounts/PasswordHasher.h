// Password hashing with argon2id (libargon2), stored as the PHC string
//   $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
// so the parameters travel with each hash and can be raised later without
// invalidating old hashes (verify() reads them from the string).
//
// Threading: const and thread-safe. Each hash or verify allocates memoryKib
// of memory for its duration; concurrent logins multiply that.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rapport::host::accounts {

// Cost parameters. The defaults are the OWASP minimum for argon2id; lower
// values are refused (a weak configuration must not start silently).
struct Argon2Params {
  std::uint32_t memoryKib = 19456;  // auth.argon2.memory_kib
  std::uint32_t iterations = 2;     // auth.argon2.iterations
  std::uint32_t parallelism = 1;    // auth.argon2.parallelism

  // Throws std::invalid_argument naming the config key that is out of range.
  void validate() const;
};

class PasswordHasher {
 public:
  // Validates `params` (std::invalid_argument) and prepares the dummy hash
  // burn() verifies against, which costs one hash at start-up.
  explicit PasswordHasher(Argon2Params params = {});

  // A fresh PHC-encoded argon2id hash with a random 16-byte salt.
  // Throws std::runtime_error when libargon2 or the CSPRNG fails.
  std::string hash(std::string_view password) const;

  // True when `password` matches `encoded`. A malformed or non-argon2id
  // `encoded` is a mismatch (false), never an exception.
  bool verify(std::string_view password, const std::string& encoded) const;

  // Spends the time of one verify() on a fixed dummy hash, so a login for an
  // unknown e-mail takes as long as one with a wrong password.
  void burn(std::string_view password) const;

  const Argon2Params& params() const { return params_; }

 private:
  Argon2Params params_;
  std::string dummyHash_;
};

}  // namespace rapport::host::accounts
