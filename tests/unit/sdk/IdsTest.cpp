// rapport::newId, randomToken, sha256Hex and constantTimeEquals.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "rapport/ids.h"

class IdsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(IdsTest);
  CPPUNIT_TEST(testNewIdShape);
  CPPUNIT_TEST(testNewIdUnique);
  CPPUNIT_TEST(testHasPrefix);
  CPPUNIT_TEST(testRandomToken);
  CPPUNIT_TEST(testSha256);
  CPPUNIT_TEST(testConstantTimeEquals);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testNewIdShape() {
    for (int i = 0; i < 100; ++i) {
      const std::string id = rapport::newId("cont_");
      CPPUNIT_ASSERT_EQUAL(std::size_t{5 + 26}, id.size());
      CPPUNIT_ASSERT_EQUAL(std::string("cont_"), id.substr(0, 5));
      const std::string suffix = id.substr(5);
      CPPUNIT_ASSERT_MESSAGE(
          id, suffix.find_first_not_of("abcdefghijklmnopqrstuvwxyz234567") == std::string::npos);
      // 128 bits in 26 characters: the last one carries 3 bits and 2 zero bits.
      CPPUNIT_ASSERT_MESSAGE(id, std::string("aeimquy4").find(suffix.back()) != std::string::npos);
    }
  }

  void testNewIdUnique() {
    std::set<std::string> ids;
    for (int i = 0; i < 10000; ++i) ids.insert(rapport::newId("x_"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{10000}, ids.size());
  }

  void testHasPrefix() {
    CPPUNIT_ASSERT(rapport::hasPrefix("cont_abc", "cont_"));
    CPPUNIT_ASSERT(!rapport::hasPrefix("cont_", "cont_"));
    CPPUNIT_ASSERT(!rapport::hasPrefix("deal_abc", "cont_"));
    CPPUNIT_ASSERT(!rapport::hasPrefix("con", "cont_"));
  }

  void testRandomToken() {
    CPPUNIT_ASSERT_EQUAL(std::string(""), rapport::randomToken(0));
    CPPUNIT_ASSERT_EQUAL(std::size_t{43}, rapport::randomToken(32).size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, rapport::randomToken(1).size());
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, rapport::randomToken(3).size());
    const std::string token = rapport::randomToken(300);
    CPPUNIT_ASSERT(token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                           "0123456789-_") == std::string::npos);
    CPPUNIT_ASSERT(rapport::randomToken(32) != rapport::randomToken(32));
  }

  void testSha256() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        rapport::sha256Hex(""));
    CPPUNIT_ASSERT_EQUAL(
        std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        rapport::sha256Hex("abc"));
  }

  void testConstantTimeEquals() {
    CPPUNIT_ASSERT(rapport::constantTimeEquals("", ""));
    CPPUNIT_ASSERT(rapport::constantTimeEquals("secret", "secret"));
    CPPUNIT_ASSERT(!rapport::constantTimeEquals("secret", "secreT"));
    CPPUNIT_ASSERT(!rapport::constantTimeEquals("secret", "secret2"));
    CPPUNIT_ASSERT(!rapport::constantTimeEquals("", "x"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(IdsTest);
