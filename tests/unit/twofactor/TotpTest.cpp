// TOTP (RFC 6238) as two-factor login checks it: codes come from oathtool
// at fixed times, never from the server's own generator.
#include <cppunit/extensions/HelperMacros.h>

#include <regex>
#include <stdexcept>

#include "accounts/twofactor/Totp.h"
#include "support/OathTool.h"

namespace tf = rapport::host::accounts::twofactor;
using rapport::test::oathCode;

namespace {

// 20 bytes, base32 (the shape newTotpSecret() produces).
const std::string kSecret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
// The middle of a step: 1700000010 is a step boundary (56666667 * 30).
constexpr std::int64_t kNow = 1700000025;

}  // namespace

class TotpTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TotpTest);
  CPPUNIT_TEST(testRfc6238Vector);
  CPPUNIT_TEST(testOneStepOfDriftEitherWay);
  CPPUNIT_TEST(testTwoStepsAwayAreRefused);
  CPPUNIT_TEST(testStepBoundaries);
  CPPUNIT_TEST(testMalformedCodesAreRefused);
  CPPUNIT_TEST(testCorruptSecretThrows);
  CPPUNIT_TEST(testNewSecretShape);
  CPPUNIT_TEST(testOtpauthUri);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRfc6238Vector() {
    // RFC 6238 appendix B, SHA-1, T = 59: 94287082 (8 digits) -> 287082.
    const std::string rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";  // "12345678901234567890"
    CPPUNIT_ASSERT_EQUAL(std::string("287082"), oathCode(rfcSecret, 59));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, *tf::matchTotp(rfcSecret, "287082", 59));
  }

  void testOneStepOfDriftEitherWay() {
    const std::int64_t step = tf::totpStep(kNow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{56666667}, step);
    for (int k = -1; k <= 1; ++k) {
      const std::string code = oathCode(kSecret, kNow + 30 * k);
      const auto matched = tf::matchTotp(kSecret, code, kNow);
      CPPUNIT_ASSERT_MESSAGE("drift " + std::to_string(k), matched.has_value());
      CPPUNIT_ASSERT_EQUAL(step + k, *matched);
    }
  }

  void testTwoStepsAwayAreRefused() {
    for (int k : {-3, -2, 2, 3}) {
      const std::string code = oathCode(kSecret, kNow + 30 * k);
      CPPUNIT_ASSERT_MESSAGE("drift " + std::to_string(k), !tf::matchTotp(kSecret, code, kNow));
    }
  }

  void testStepBoundaries() {
    // The last second of a step and the first of the next are different steps.
    const std::int64_t boundary = 1700000010;
    const std::string before = oathCode(kSecret, boundary - 1);
    const std::string after = oathCode(kSecret, boundary);
    CPPUNIT_ASSERT_EQUAL(tf::totpStep(boundary) - 1, *tf::matchTotp(kSecret, before, boundary));
    CPPUNIT_ASSERT_EQUAL(tf::totpStep(boundary), *tf::matchTotp(kSecret, after, boundary));
    // Two steps after `before` it is out of the window.
    CPPUNIT_ASSERT(!tf::matchTotp(kSecret, before, boundary + 30));
  }

  void testMalformedCodesAreRefused() {
    const std::string good = oathCode(kSecret, kNow);
    for (const std::string& bad :
         {std::string(), good.substr(0, 5), good + "0", std::string("abcdef"), " " + good.substr(1),
          good.substr(0, 3) + "-" + good.substr(4)}) {
      CPPUNIT_ASSERT_MESSAGE("'" + bad + "'", !tf::matchTotp(kSecret, bad, kNow));
    }
    CPPUNIT_ASSERT(tf::isSixDigits("012345"));
    CPPUNIT_ASSERT(!tf::isSixDigits("01234x"));
  }

  void testCorruptSecretThrows() {
    CPPUNIT_ASSERT_THROW(tf::matchTotp("!!!not base32!!!", "123456", kNow), std::runtime_error);
  }

  void testNewSecretShape() {
    const std::string a = tf::newTotpSecret();
    const std::string b = tf::newTotpSecret();
    CPPUNIT_ASSERT(std::regex_match(a, std::regex("[A-Z2-7]{32}")));  // 160 bits, no padding
    CPPUNIT_ASSERT(a != b);
    // oathtool reads it, and the server accepts oathtool's code for it.
    const std::string code = oathCode(a, kNow);
    CPPUNIT_ASSERT_EQUAL(tf::totpStep(kNow), *tf::matchTotp(a, code, kNow));
  }

  void testOtpauthUri() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("otpauth://totp/Rapport:ann%2Bx%40example.com?secret=ABCDEF&issuer=Rapport"
                    "&algorithm=SHA1&digits=6&period=30"),
        tf::otpauthUri("ann+x@example.com", "ABCDEF"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TotpTest);
