// The text kept of a receiver's answer (response_body): valid UTF-8 without
// NUL, at most the given bytes, whatever bytes came.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "delivery/Attempt.h"
#include "rapport/validation.h"

using rapport::webhooks::storableText;

class StorableTextTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StorableTextTest);
  CPPUNIT_TEST(testValidTextIsKept);
  CPPUNIT_TEST(testInvalidBytesAndNulAreReplaced);
  CPPUNIT_TEST(testCutNeverSplitsACharacter);
  CPPUNIT_TEST(testAnyBytesGiveStorableText);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testValidTextIsKept() {
    CPPUNIT_ASSERT_EQUAL(std::string("{\"ok\":true} caf\xc3\xa9 \xf0\x9f\x98\x80"),
                         storableText("{\"ok\":true} caf\xc3\xa9 \xf0\x9f\x98\x80", 4096));
    CPPUNIT_ASSERT_EQUAL(std::string(), storableText("", 4096));
  }

  void testInvalidBytesAndNulAreReplaced() {
    const std::string replacement = "\xef\xbf\xbd";
    CPPUNIT_ASSERT_EQUAL("a" + replacement + "b", storableText(std::string("a\0b", 3), 4096));
    CPPUNIT_ASSERT_EQUAL("a" + replacement + "b", storableText("a\xff"
                                                               "b",
                                                               4096));
    // Overlong "/" and a UTF-16 surrogate are not UTF-8.
    CPPUNIT_ASSERT_EQUAL(replacement + replacement, storableText("\xc0\xaf", 4096));
    CPPUNIT_ASSERT_EQUAL(replacement + replacement + replacement,
                         storableText("\xed\xa0\x80", 4096));
  }

  void testCutNeverSplitsACharacter() {
    // 4095 ASCII bytes then a 2-byte character: the character does not fit.
    const std::string text = std::string(4095, 'x') + "\xc3\xa9";
    CPPUNIT_ASSERT_EQUAL(std::string(4095, 'x'), storableText(text, 4096));
    // A character the sender's cut split at the end is dropped, not replaced.
    CPPUNIT_ASSERT_EQUAL(std::string("ab"), storableText("ab\xe2\x82", 4096));
    CPPUNIT_ASSERT_EQUAL(std::size_t(4096), storableText(std::string(10000, 'y'), 4096).size());
  }

  void testAnyBytesGiveStorableText() {
    std::string bytes;
    for (int round = 0; round < 40; ++round) {
      for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>((b * 37 + round) & 0xff));
    }
    const std::string kept = storableText(bytes, 4096);
    CPPUNIT_ASSERT(kept.size() <= 4096);
    CPPUNIT_ASSERT(rapport::isValidUtf8(kept));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(StorableTextTest);
