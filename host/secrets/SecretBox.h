// The host's rapport::SecretBox (sdk secrets.h): AES-256-GCM under the
// server's secret key, a fresh 96-bit nonce per seal, the caller's context
// as additional authenticated data. Sealed text: "rk1:" + base64(nonce ||
// ciphertext || tag). "rk1" names the format and key generation, so a later
// key rotation can tell old values from new ones.
//
// The key (docs/security.md): `secrets.key` (base64 of 32 bytes) when set,
// else the file `secrets.key_file` (data/secret.key). A missing file is
// created with a random key, mode 0600, atomically (written aside, then
// linked into place: two instances starting at once agree on one key).
//
// Threading: immutable after construction; seal/open from any thread.
#pragma once

#include <memory>
#include <string>

#include "rapport/config.h"
#include "rapport/secrets.h"

namespace rapport::host {

class AesGcmSecretBox final : public rapport::SecretBox {
 public:
  static constexpr std::size_t kKeyBytes = 32;

  // Reads or creates the key as described above. Throws std::runtime_error
  // naming the key or file (never the key itself) when it is unusable.
  static std::unique_ptr<AesGcmSecretBox> fromConfig(const rapport::Config& config);

  // `key` is kKeyBytes raw bytes.
  explicit AesGcmSecretBox(std::string key);

  std::string seal(std::string_view plaintext, std::string_view context) const override;
  std::string open(std::string_view sealed, std::string_view context) const override;

 private:
  std::string key_;
};

// The key in `path`, created as described above when missing.
std::string loadOrCreateKeyFile(const std::string& path);

}  // namespace rapport::host
