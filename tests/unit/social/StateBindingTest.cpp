// The binding of a social-login state to its client (StateBinding.h): the
// cookie and its attributes, reading it back among other cookies, and the
// claim a callback makes with or without it.
#include <cppunit/extensions/HelperMacros.h>

#include "accounts/social/StateBinding.h"
#include "rapport/ids.h"

using namespace rapport::host::accounts::social;

namespace {

rapport::Request requestFrom(const std::string& address, rapport::Headers headers = {}) {
  rapport::Request req;
  req.method = "GET";
  req.apiVersion = "v1";
  req.clientAddress = address;
  req.headers = std::move(headers);
  return req;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

class StateBindingTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StateBindingTest);
  CPPUNIT_TEST(testCookieAttributes);
  CPPUNIT_TEST(testSecureUnlessPlainHttpOnLoopback);
  CPPUNIT_TEST(testReadingTheCookieBack);
  CPPUNIT_TEST(testClaimWithAndWithoutTheCookie);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCookieAttributes() {
    const rapport::Request req = requestFrom("192.0.2.7");
    const NewBinding binding = newBinding(req);
    CPPUNIT_ASSERT_EQUAL(std::size_t(43), binding.value.size());  // 256 bits, base64url
    CPPUNIT_ASSERT_EQUAL(rapport::sha256Hex(binding.value), binding.bindingHash);
    CPPUNIT_ASSERT(newBinding(req).value != binding.value);
    CPPUNIT_ASSERT_EQUAL(std::string("rapport_social_binding=") + binding.value +
                             "; Max-Age=600; Path=/v1/auth/social; HttpOnly; SameSite=Lax; Secure",
                         bindingCookie(req, binding.value, 600));
  }

  void testSecureUnlessPlainHttpOnLoopback() {
    for (const char* loopback : {"127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"}) {
      CPPUNIT_ASSERT_MESSAGE(loopback, isLoopbackAddress(loopback));
      CPPUNIT_ASSERT_MESSAGE(loopback,
                             !has(bindingCookie(requestFrom(loopback), "v", 600), "Secure"));
      // A TLS proxy on the same machine says so.
      CPPUNIT_ASSERT_MESSAGE(
          loopback,
          has(bindingCookie(requestFrom(loopback, {{"X-Forwarded-Proto", "https"}}), "v", 600),
              "; Secure"));
    }
    for (const char* remote : {"192.0.2.7", "2001:db8::1", "::ffff:192.0.2.7", "10.0.0.1"}) {
      CPPUNIT_ASSERT_MESSAGE(remote, !isLoopbackAddress(remote));
      CPPUNIT_ASSERT_MESSAGE(remote, has(bindingCookie(requestFrom(remote), "v", 600), "; Secure"));
    }
  }

  void testReadingTheCookieBack() {
    const auto cookieOf = [](const std::string& header) {
      return requestCookie(requestFrom("192.0.2.7", {{"Cookie", header}}), kBindingCookie);
    };
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), *cookieOf("rapport_social_binding=abc"));
    CPPUNIT_ASSERT_EQUAL(std::string("abc"),
                         *cookieOf("theme=dark;  rapport_social_binding=abc ; x=1"));
    CPPUNIT_ASSERT_EQUAL(std::string("abc"), *cookieOf("rapport_social_binding=\"abc\""));
    CPPUNIT_ASSERT_EQUAL(std::string(""), *cookieOf("rapport_social_binding="));
    CPPUNIT_ASSERT(!cookieOf("other_rapport_social_binding=abc; theme=dark"));
    CPPUNIT_ASSERT(!requestCookie(requestFrom("192.0.2.7"), kBindingCookie));
  }

  void testClaimWithAndWithoutTheCookie() {
    const rapport::Request asked = requestFrom("2001:db8:0:1::7");
    const NewBinding binding = newBinding(asked);
    // Without the cookie: the address key (IPv6 per /64) is the claim.
    const StateClaim sameNet = claimOf(requestFrom("2001:db8:0:1::99"));
    CPPUNIT_ASSERT(!sameNet.bindingHash);
    CPPUNIT_ASSERT_EQUAL(binding.clientHash, sameNet.clientHash);
    CPPUNIT_ASSERT(claimOf(requestFrom("2001:db8:0:2::7")).clientHash != binding.clientHash);
    // With it: its hash, whatever the address.
    const StateClaim withCookie = claimOf(
        requestFrom("198.51.100.1", {{"Cookie", "rapport_social_binding=" + binding.value}}));
    CPPUNIT_ASSERT_EQUAL(binding.bindingHash, *withCookie.bindingHash);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StateBindingTest);
