// The server shared by the e2e.auth suites, and the token-object checks.
#pragma once

#include "e2e/common/Api.h"

namespace rapport::e2e {

inline ServerProcess& authServer() {
  static ServerProcess server(generousSettings());
  return server;
}

// The token object (API, Token object; decisions §3): token, token_type
// Bearer, expires_in as expected, expires_at ISO-8601 UTC about now +
// expires_in.
inline void assertTokenObject(const Json& data, std::int64_t expiresIn,
                              const CppUnit::SourceLine& line) {
  const std::string shown = data.dump();
  auto fail = [&](const std::string& why) {
    CppUnit::Asserter::fail(CppUnit::Message("token object: " + why, shown), line);
  };
  if (!data["token"].isString() || data["token"].asString().size() < 32) fail("token");
  if (!data["token_type"].isString() || data["token_type"].asString() != "Bearer") {
    fail("token_type is not Bearer");
  }
  if (!data["expires_in"].isInt() || data["expires_in"].asInt() != expiresIn) {
    fail("expires_in is not " + std::to_string(expiresIn));
  }
  const std::int64_t expiresAt = assertIsoUtc(data["expires_at"], line);
  const std::int64_t expected = unixNow() + expiresIn;
  if (expiresAt < expected - 60 || expiresAt > expected + 60) {
    fail("expires_at is not about now + expires_in");
  }
}

#define E2E_ASSERT_TOKEN(data, expiresIn) \
  ::rapport::e2e::assertTokenObject((data), (expiresIn), CPPUNIT_SOURCELINE())

}  // namespace rapport::e2e
