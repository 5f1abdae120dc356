// Percent-decoding and query parsing.
#include <cppunit/extensions/HelperMacros.h>

#include "http/UrlCoding.h"

using rapport::host::parseQuery;
using rapport::host::percentDecode;

class UrlCodingTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(UrlCodingTest);
  CPPUNIT_TEST(testPercentDecode);
  CPPUNIT_TEST(testQuery);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testPercentDecode() {
    CPPUNIT_ASSERT_EQUAL(std::string("a b"), percentDecode("a%20b", false));
    CPPUNIT_ASSERT_EQUAL(std::string("a+b"), percentDecode("a+b", false));
    CPPUNIT_ASSERT_EQUAL(std::string("a b"), percentDecode("a+b", true));
    CPPUNIT_ASSERT_EQUAL(std::string("caf\xc3\xa9"), percentDecode("caf%C3%a9", false));
    // Malformed escapes stay as written.
    CPPUNIT_ASSERT_EQUAL(std::string("100%"), percentDecode("100%", false));
    CPPUNIT_ASSERT_EQUAL(std::string("%G1%2"), percentDecode("%G1%2", false));
  }

  void testQuery() {
    const auto q = parseQuery("search=ann+lee&tag=a%26b&page=2&tag=second&flag&=x&e=");
    CPPUNIT_ASSERT_EQUAL(std::string("ann lee"), q.at("search"));
    CPPUNIT_ASSERT_EQUAL(std::string("a&b"), q.at("tag"));  // first value wins
    CPPUNIT_ASSERT_EQUAL(std::string("2"), q.at("page"));
    CPPUNIT_ASSERT_EQUAL(std::string(""), q.at("flag"));
    CPPUNIT_ASSERT_EQUAL(std::string(""), q.at("e"));
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, q.size());
    CPPUNIT_ASSERT(parseQuery("").empty());
    CPPUNIT_ASSERT(parseQuery("&&").empty());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(UrlCodingTest);
