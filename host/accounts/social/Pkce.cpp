#include "accounts/social/Pkce.h"

#include <openssl/sha.h>

#include <Poco/Base64Encoder.h>

#include <sstream>

#include "rapport/ids.h"

namespace rapport::host::accounts::social {

std::string newCodeVerifier() {
  return rapport::randomToken(32);
}

std::string s256Challenge(const std::string& verifier) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
  std::ostringstream out;
  Poco::Base64Encoder encoder(out, Poco::BASE64_URL_ENCODING | Poco::BASE64_NO_PADDING);
  encoder.rdbuf()->setLineLength(0);
  encoder.write(reinterpret_cast<const char*>(digest), sizeof digest);
  encoder.close();
  return out.str();
}

}  // namespace rapport::host::accounts::social
