// ratelimit.on_store_error (StoreErrorPolicy.h): its values, which routes
// are auth routes, and what each value refuses.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>

#include "ratelimit/StoreErrorPolicy.h"

using rapport::host::isAuthRoute;
using rapport::host::OnStoreError;
using rapport::host::parseOnStoreError;
using rapport::host::StoreErrorPolicy;

class StoreErrorPolicyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StoreErrorPolicyTest);
  CPPUNIT_TEST(testValues);
  CPPUNIT_TEST(testUnknownValueNamesTheKey);
  CPPUNIT_TEST(testAuthRoutes);
  CPPUNIT_TEST(testWhatEachValueRefuses);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testValues() {
    CPPUNIT_ASSERT(parseOnStoreError("allow") == OnStoreError::Allow);
    CPPUNIT_ASSERT(parseOnStoreError("deny") == OnStoreError::Deny);
    CPPUNIT_ASSERT(parseOnStoreError("deny_auth") == OnStoreError::DenyAuth);
  }

  void testUnknownValueNamesTheKey() {
    for (const char* bad : {"", "Deny", "open", "deny-auth"}) {
      try {
        parseOnStoreError(bad);
        CPPUNIT_FAIL(std::string("accepted '") + bad + "'");
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_EQUAL(std::string("ratelimit.on_store_error must be allow, deny or "
                                         "deny_auth (got '") +
                                 bad + "')",
                             std::string(e.what()));
      }
    }
  }

  // The public routes under /v1/auth/ but refresh; nothing that takes a token.
  void testAuthRoutes() {
    for (const char* path :
         {"/v1/auth/login", "/v1/auth/register", "/v1/auth/forgot-password",
          "/v1/auth/reset-password", "/v1/auth/two-factor/challenge", "/v1/auth/2fa/challenge",
          "/v1/auth/social/{provider}/callback", "/v1/auth/social/exchange"}) {
      CPPUNIT_ASSERT_MESSAGE(path, isAuthRoute(path, true));
    }
    CPPUNIT_ASSERT(!isAuthRoute("/v1/auth/refresh", true));
    CPPUNIT_ASSERT(!isAuthRoute("/v1/auth/me", false));
    CPPUNIT_ASSERT(!isAuthRoute("/v1/auth/context", false));
    CPPUNIT_ASSERT(!isAuthRoute("/v1/versions", true));
    CPPUNIT_ASSERT(!isAuthRoute("/v1/authors", true));
    CPPUNIT_ASSERT(!isAuthRoute("/v1/crm/contacts", false));
  }

  void testWhatEachValueRefuses() {
    const StoreErrorPolicy allow(OnStoreError::Allow);
    const StoreErrorPolicy deny(OnStoreError::Deny);
    const StoreErrorPolicy denyAuth(OnStoreError::DenyAuth);
    CPPUNIT_ASSERT(!allow.refuses(true) && !allow.refuses(false));
    CPPUNIT_ASSERT(deny.refuses(true) && deny.refuses(false));
    CPPUNIT_ASSERT(denyAuth.refuses(true) && !denyAuth.refuses(false));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StoreErrorPolicyTest);
