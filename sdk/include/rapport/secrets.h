// Secrets at rest: values a module must be able to read back (a webhook's
// signing secret, a two-factor seed) are sealed before they are stored, so a
// database dump alone does not reveal them.
//
// The host seals with AES-256-GCM under the server's secret key: the
// `secrets.key` setting (32 bytes, base64), else the key file
// `secrets.key_file` (data/secret.key), created with mode 0600 on first
// start. Every instance sharing a database must have the same key
// (docs/security.md says how to set it and how to move to a new one).
//
// `context` binds a sealed value to where it is stored (for example
// "webhook:whk_123"): opening it under another context fails, so a value
// copied into another row is useless.
#pragma once

#include <string>
#include <string_view>

#include "rapport/export.h"

namespace rapport {

class RAPPORT_VISIBLE SecretBox {
 public:
  virtual ~SecretBox() = default;
  // Text safe to store in a TEXT column ("rk1:" + base64).
  virtual std::string seal(std::string_view plaintext, std::string_view context) const = 0;
  // Throws std::runtime_error (without the value) when `sealed` was not
  // sealed with this server's key under `context`, or was altered.
  virtual std::string open(std::string_view sealed, std::string_view context) const = 0;
};

}  // namespace rapport
