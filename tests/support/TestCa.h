// Throw-away certificate authorities for tests that need a real TLS peer (the
// webhooks receiver, the SMTP server, the OpenID Connect provider): made at
// test time with the `openssl` command, in temporary folders removed at exit.
// Also the small process runner those tests use to ask `openssl` (or any
// tool) for an independent answer, such as an HMAC.
#pragma once

#include <string>
#include <vector>

namespace rapport::test {

struct Certificates {
  std::string caFile;    // the CA certificate (PEM): what the client trusts
  std::string certFile;  // the server's certificate (PEM), signed by the CA
  std::string keyFile;   // its private key (PEM)
};

// A new CA named after `label` and a server certificate it signed for
// `subjectAltName` (openssl's syntax).
Certificates makeCertificates(const std::string& label,
                              const std::string& subjectAltName = "DNS:localhost, IP:127.0.0.1");

// Another server certificate, signed by the CA that made `ca` (for example
// one valid for another name), written beside it as <name>.pem/.key.
Certificates signedBySameCa(const Certificates& ca, const std::string& name,
                            const std::string& subjectAltName);

// The CA most tests share, made once per test process: a certificate for
// localhost and 127.0.0.1.
const Certificates& testCertificates();

// Runs `program` with `args` (no shell), writes `input` to its standard
// input and returns its standard output and error; throws when it cannot be
// started or exits non-zero.
std::string runTool(const std::string& program, const std::vector<std::string>& args,
                    const std::string& input = "");

// Lower-case hex HMAC-SHA256 of `message` keyed with `key`, computed by
// `openssl dgst -sha256 -hmac <key>` (independent of the server's code).
std::string opensslHmacSha256(const std::string& key, const std::string& message);

}  // namespace rapport::test
