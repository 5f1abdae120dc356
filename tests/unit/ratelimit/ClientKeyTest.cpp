// clientKey: the key every per-address count uses. IPv4 as is, IPv4-mapped
// IPv6 as its IPv4 address, any other IPv6 by its /64 in canonical text
// (whatever spelling the address came in), anything else unchanged.
#include <cppunit/extensions/HelperMacros.h>

#include <string>

#include "ratelimit/ClientKey.h"

using rapport::host::clientKey;

class ClientKeyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ClientKeyTest);
  CPPUNIT_TEST(testIpv4AsIs);
  CPPUNIT_TEST(testIpv6ByItsSlash64);
  CPPUNIT_TEST(testIpv6SpellingsAgree);
  CPPUNIT_TEST(testMappedIpv4IsTheIpv4Address);
  CPPUNIT_TEST(testScopeAndBracketsDropped);
  CPPUNIT_TEST(testGarbageUnchanged);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testIpv4AsIs() {
    CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7"), clientKey("192.0.2.7"));
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), clientKey("127.0.0.1"));
    CPPUNIT_ASSERT_EQUAL(std::string("0.0.0.0"), clientKey("0.0.0.0"));
    // Neighbours are different clients: no prefix for IPv4.
    CPPUNIT_ASSERT(clientKey("192.0.2.7") != clientKey("192.0.2.8"));
  }

  void testIpv6ByItsSlash64() {
    CPPUNIT_ASSERT_EQUAL(std::string("2001:db8:0:1::/64"), clientKey("2001:db8:0:1:2:3:4:5"));
    CPPUNIT_ASSERT_EQUAL(std::string("2001:db8:0:1::/64"),
                         clientKey("2001:db8:0:1:ffff:ffff:ffff:ffff"));
    CPPUNIT_ASSERT_EQUAL(std::string("2001:db8:aaaa:bbbb::/64"),
                         clientKey("2001:db8:aaaa:bbbb::1"));
    // The next /64 is another client.
    CPPUNIT_ASSERT_EQUAL(std::string("2001:db8:0:2::/64"), clientKey("2001:db8:0:2::1"));
    CPPUNIT_ASSERT_EQUAL(std::string("::/64"), clientKey("::1"));
    CPPUNIT_ASSERT_EQUAL(std::string("fe80::/64"), clientKey("fe80::1:2"));
  }

  void testIpv6SpellingsAgree() {
    const std::string expected = "2001:db8:0:1::/64";
    for (const char* spelling :
         {"2001:DB8:0:1:0:0:0:1", "2001:0db8:0000:0001:0000:0000:0000:0002",
          "2001:db8::1:abcd:0:0:9", "2001:Db8:0:1::", "2001:db8:0:1:1:2:10.0.0.1"}) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(spelling, expected, clientKey(spelling));
    }
  }

  void testMappedIpv4IsTheIpv4Address() {
    CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7"), clientKey("::ffff:192.0.2.7"));
    CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7"), clientKey("::FFFF:c000:0207"));
    CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7"), clientKey("0:0:0:0:0:ffff:192.0.2.7"));
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), clientKey("::ffff:127.0.0.1"));
    // The same client over a dual-stack socket and over IPv4 counts once.
    CPPUNIT_ASSERT_EQUAL(clientKey("198.51.100.1"), clientKey("::ffff:198.51.100.1"));
  }

  void testScopeAndBracketsDropped() {
    CPPUNIT_ASSERT_EQUAL(std::string("fe80::/64"), clientKey("fe80::1%eth0"));
    CPPUNIT_ASSERT_EQUAL(std::string("2001:db8:0:1::/64"), clientKey("[2001:db8:0:1::5]"));
    CPPUNIT_ASSERT_EQUAL(std::string("192.0.2.7"), clientKey("[::ffff:192.0.2.7]"));
  }

  void testGarbageUnchanged() {
    for (const char* text : {"", "not an address", "192.0.2", "192.0.2.256", "1.2.3.4.5",
                             "2001:db8::1::2", "2001:db8:0:1:2:3:4:5:6", "gggg::1", "::ffff:1.2.3",
                             "localhost", "/run/rapport.sock", "[", "%", "[]"}) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(text, std::string(text), clientKey(text));
    }
    // A key is already a key: it maps to itself.
    CPPUNIT_ASSERT_EQUAL(std::string("2001:db8:0:1::/64"), clientKey("2001:db8:0:1::/64"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ClientKeyTest);
