// The delivery signature against an implementation independent of ours: the
// `openssl dgst -sha256 -hmac KEY` command on the same bytes.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "WebhooksTestSupport.h"
#include "delivery/Signature.h"

using rapport::webhooks::hmacSha256Hex;
using rapport::webhooks::signatureHeader;

using webhooks_test::opensslHmac;

class SignatureTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SignatureTest);
  CPPUNIT_TEST(testKnownVector);
  CPPUNIT_TEST(testAgreesWithOpensslCommand);
  CPPUNIT_TEST(testHeaderFormat);
  CPPUNIT_TEST(testHeaderWithTwoSecrets);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testKnownVector() {
    // RFC 4231 test case 2.
    CPPUNIT_ASSERT_EQUAL(
        std::string("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        hmacSha256Hex("Jefe", "what do ya want for nothing?"));
  }

  void testAgreesWithOpensslCommand() {
    const std::string secret = "whsec_Q2hhbmdlTWVfMzJfcmFuZG9tX2J5dGVzX2hlcmU";
    const std::string body =
        "{\"id\":\"evt_01\",\"event\":\"crm.contact.created\",\"created_at\":"
        "\"2026-01-02T03:04:05Z\",\"data\":{\"name\":\"J\\u00e9r\\u00f4me \\\"Q\\\"\","
        "\"note\":\"line1\\nline2\"}}\n\xc3\xa9";
    const std::string message = "1767323045." + body;
    CPPUNIT_ASSERT_EQUAL(opensslHmac(secret, message), hmacSha256Hex(secret, message));
    CPPUNIT_ASSERT_EQUAL(opensslHmac("whsec_other_secret_value", "1." + std::string("{}")),
                         hmacSha256Hex("whsec_other_secret_value", "1.{}"));
    const std::string large(100000, 'x');
    CPPUNIT_ASSERT_EQUAL(opensslHmac(secret, large), hmacSha256Hex(secret, large));
  }

  void testHeaderFormat() {
    const std::string secret = "whsec_abcdefghijklmnop";
    const std::string header = signatureHeader(secret, 1700000000, "{\"a\":1}");
    CPPUNIT_ASSERT_EQUAL("t=1700000000,v1=" + opensslHmac(secret, "1700000000.{\"a\":1}"), header);
    CPPUNIT_ASSERT_EQUAL(std::size_t{16 + 64}, header.size());
    // The list form with one secret writes the same header.
    CPPUNIT_ASSERT_EQUAL(
        header, signatureHeader(std::vector<std::string>{secret}, 1700000000, "{\"a\":1}"));
  }

  // During a rotation's overlap: one t, then v1 of the new secret, then v1 of
  // the one it replaced, both over the same "<t>.<body>".
  void testHeaderWithTwoSecrets() {
    const std::string fresh = "whsec_the_new_secret_after_rotation";
    const std::string old = "whsec_abcdefghijklmnop";
    const std::string body = "{\"id\":\"evt_1\"}";
    const std::string header = signatureHeader({fresh, old}, 1700000001, body);
    CPPUNIT_ASSERT_EQUAL("t=1700000001,v1=" + opensslHmac(fresh, "1700000001." + body) +
                             ",v1=" + opensslHmac(old, "1700000001." + body),
                         header);
    CPPUNIT_ASSERT_EQUAL(std::size_t{16 + 64 + 4 + 64}, header.size());
    CPPUNIT_ASSERT_THROW(signatureHeader(std::vector<std::string>{}, 1, body),
                         std::invalid_argument);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SignatureTest);
