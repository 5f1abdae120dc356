// Password hashing with argon2id (libargon2), stored as the PHC string
//   $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
// so the parameters travel with each hash and can be raised later without
// invalidating old hashes (verify() reads them from the string). Login
// upgrades a hash whose parameters differ from the configured ones
// (needsRehash) once the password is known to be right.
//
// Threading: thread-safe. Each hash or verify allocates memoryKib of memory
// for its duration, so at most maxConcurrent of them run at once (hash,
// verify and burn alike); the others wait up to queueTimeoutMs, then throw
// rapport::Error 503 with Retry-After: 1 (passwords/HashingGate.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "accounts/passwords/HashingGate.h"

namespace rapport::host::accounts {

// Cost parameters. The defaults are the OWASP minimum for argon2id; lower
// values are refused (a weak configuration must not start silently).
struct Argon2Params {
  std::uint32_t memoryKib = 19456;  // auth.argon2.memory_kib
  std::uint32_t iterations = 2;     // auth.argon2.iterations
  std::uint32_t parallelism = 1;    // auth.argon2.parallelism
  // Not part of the hash: how many computations may run at once (0: the
  // number of cores) and how long the others wait for their turn.
  std::uint32_t maxConcurrent = 0;      // auth.argon2.max_concurrent
  std::uint32_t queueTimeoutMs = 5000;  // auth.argon2.queue_timeout

  // Throws std::invalid_argument naming the config key that is out of range.
  void validate() const;
};

class PasswordHasher {
 public:
  // Validates `params` (std::invalid_argument) and prepares the dummy hash
  // burn() verifies against, which costs one hash at start-up.
  explicit PasswordHasher(Argon2Params params = {});

  // A fresh PHC-encoded argon2id hash with a random 16-byte salt.
  // Throws std::runtime_error when libargon2 or the CSPRNG fails, and
  // rapport::Error 503 when no computation slot came free in time (so do
  // verify() and burn()).
  std::string hash(std::string_view password) const;

  // True when `password` matches `encoded`. A malformed or non-argon2id
  // `encoded` is a mismatch (false), never an exception.
  bool verify(std::string_view password, const std::string& encoded) const;

  // Spends the time of one verify() on a fixed dummy hash, so a login for an
  // unknown e-mail takes as long as one with a wrong password.
  void burn(std::string_view password) const;

  // True when `encoded` is not an argon2id (v=19) hash with exactly the
  // configured memory, iterations and parallelism: the operator raised (or
  // lowered) the cost since it was made, or it is not ours at all. Login
  // then stores a fresh hash() of the password it just verified.
  bool needsRehash(const std::string& encoded) const;

  const Argon2Params& params() const { return params_; }
  const passwords::HashingGate& gate() const { return *gate_; }

 private:
  Argon2Params params_;
  std::unique_ptr<passwords::HashingGate> gate_;
  std::string dummyHash_;
};

}  // namespace rapport::host::accounts
