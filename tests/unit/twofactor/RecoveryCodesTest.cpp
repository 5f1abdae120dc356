// Recovery codes: shape, normalisation, hashing.
#include <cppunit/extensions/HelperMacros.h>

#include <regex>
#include <set>

#include "accounts/twofactor/RecoveryCodes.h"

namespace tf = rapport::host::accounts::twofactor;

class RecoveryCodesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RecoveryCodesTest);
  CPPUNIT_TEST(testShape);
  CPPUNIT_TEST(testNormalisation);
  CPPUNIT_TEST(testHash);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testShape() {
    std::set<std::string> seen;
    for (int round = 0; round < 20; ++round) {
      const std::vector<std::string> codes = tf::newRecoveryCodes();
      CPPUNIT_ASSERT_EQUAL(std::size_t{8}, codes.size());
      for (const std::string& code : codes) {
        CPPUNIT_ASSERT_MESSAGE(
            code, std::regex_match(code, std::regex("[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}")));
        CPPUNIT_ASSERT_MESSAGE("repeated " + code, seen.insert(code).second);
      }
    }
  }

  void testNormalisation() {
    CPPUNIT_ASSERT_EQUAL(std::string("abcde23456"), *tf::normaliseRecoveryCode("abcde-23456"));
    CPPUNIT_ASSERT_EQUAL(std::string("abcde23456"), *tf::normaliseRecoveryCode("ABCDE 23456"));
    CPPUNIT_ASSERT_EQUAL(std::string("abcde23456"), *tf::normaliseRecoveryCode("abcde23456"));
    // Look-alikes are not in the alphabet; lengths must be exact.
    for (const char* bad : {"abcd0-23456", "abcdo-23456", "abcdi-23456", "abcdl-23456",
                            "abcd1-23456", "abcde-2345", "abcde-234567", "", "-----"}) {
      CPPUNIT_ASSERT_MESSAGE(bad, !tf::normaliseRecoveryCode(bad));
    }
  }

  void testHash() {
    const std::string a = tf::recoveryCodeHash("user_a", "abcde23456");
    CPPUNIT_ASSERT(std::regex_match(a, std::regex("[0-9a-f]{64}")));
    CPPUNIT_ASSERT_EQUAL(a, tf::recoveryCodeHash("user_a", "abcde23456"));
    CPPUNIT_ASSERT(a != tf::recoveryCodeHash("user_b", "abcde23456"));
    CPPUNIT_ASSERT(a != tf::recoveryCodeHash("user_a", "abcde23457"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RecoveryCodesTest);
