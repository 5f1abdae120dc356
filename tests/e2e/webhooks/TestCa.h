// A throw-away certificate authority made at test time with the `openssl`
// command, and a server certificate it signed for "localhost"
// (subjectAltName DNS:localhost, IP:127.0.0.1), for the in-test HTTPS
// receiver. rapportd trusts the CA through webhooks.ca_file.
//
// Also the small process runner the suite uses to ask `openssl` for an
// independent HMAC (signatures are never checked with the server's code).
#pragma once

#include <string>
#include <vector>

namespace rapport::e2e::webhooks {

class TestCa {
 public:
  // Made once per test process (in a temporary folder removed at exit).
  static const TestCa& instance();

  const std::string& dir() const { return dir_; }
  const std::string& caFile() const { return caFile_; }             // CA certificate (PEM)
  const std::string& certificateFile() const { return certFile_; }  // localhost (PEM)
  const std::string& keyFile() const { return keyFile_; }           // its private key (PEM)

 private:
  TestCa();
  std::string dir_;
  std::string caFile_;
  std::string certFile_;
  std::string keyFile_;
};

// Runs `program` with `args` (no shell), writes `input` to its standard
// input and returns its standard output and error; throws when it cannot be
// started or exits non-zero.
std::string runTool(const std::string& program, const std::vector<std::string>& args,
                    const std::string& input = "");

// Lower-case hex HMAC-SHA256 of `message` keyed with `key`, computed by
// `openssl dgst -sha256 -hmac <key>` (independent of the server's code).
std::string opensslHmacSha256(const std::string& key, const std::string& message);

}  // namespace rapport::e2e::webhooks
