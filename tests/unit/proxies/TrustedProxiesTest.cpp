// TrustedProxies (server.trusted_proxies): which address is the client's
// when requests come through a load balancer. IPv4, IPv6 and CIDR entries,
// the right-most untrusted hop (spoofed left-most hops ignored), an
// untrusted peer's header ignored, garbage keeping the peer, and the
// configuration refusals.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <string>

#include "http/TrustedProxies.h"

using rapport::host::TrustedProxies;

namespace {

rapport::Headers forwarded(const std::string& value) {
  return rapport::Headers{{"X-Forwarded-For", value}};
}

}  // namespace

class TrustedProxiesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TrustedProxiesTest);
  CPPUNIT_TEST(testEmptyIgnoresTheHeader);
  CPPUNIT_TEST(testTrustedPeerNamesTheClient);
  CPPUNIT_TEST(testUntrustedPeerKeepsItsAddress);
  CPPUNIT_TEST(testSpoofedLeftHopsAreIgnored);
  CPPUNIT_TEST(testChainOfTrustedProxies);
  CPPUNIT_TEST(testCidrBlocks);
  CPPUNIT_TEST(testIpv6);
  CPPUNIT_TEST(testGarbageKeepsThePeer);
  CPPUNIT_TEST(testRefusesBadEntries);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEmptyIgnoresTheHeader() {
    const TrustedProxies none = TrustedProxies::parse("  ");
    CPPUNIT_ASSERT(none.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.1"),
                         none.clientAddress("10.0.0.1", forwarded("203.0.113.9")));
  }

  void testTrustedPeerNamesTheClient() {
    const TrustedProxies proxies = TrustedProxies::parse("10.0.0.1");
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("10.0.0.1", forwarded("203.0.113.9")));
    // Header names are case-insensitive; no header: the peer.
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("10.0.0.1", {{"x-forwarded-for", "203.0.113.9"}}));
    CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.1"), proxies.clientAddress("10.0.0.1", {}));
    // An IPv4-mapped peer is its IPv4 address.
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("::ffff:10.0.0.1", forwarded("203.0.113.9")));
  }

  void testUntrustedPeerKeepsItsAddress() {
    const TrustedProxies proxies = TrustedProxies::parse("10.0.0.1");
    CPPUNIT_ASSERT_EQUAL(std::string("198.51.100.7"),
                         proxies.clientAddress("198.51.100.7", forwarded("203.0.113.9")));
  }

  void testSpoofedLeftHopsAreIgnored() {
    // The client sent "X-Forwarded-For: 1.2.3.4"; nginx appended what it saw.
    const TrustedProxies proxies = TrustedProxies::parse("10.0.0.1");
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("10.0.0.1", forwarded("1.2.3.4, 203.0.113.9")));
    // Even a spoofed trusted address on the left stops nothing.
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("10.0.0.1", forwarded("10.0.0.1,203.0.113.9")));
    // Garbage on the left is never read.
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("10.0.0.1", forwarded("<script>, 203.0.113.9")));
  }

  void testChainOfTrustedProxies() {
    const TrustedProxies proxies = TrustedProxies::parse("10.0.0.1, 10.0.0.2");
    CPPUNIT_ASSERT_EQUAL(
        std::string("203.0.113.9"),
        proxies.clientAddress("10.0.0.1", forwarded("1.2.3.4, 203.0.113.9, 10.0.0.2")));
    // Every hop trusted: the left-most.
    CPPUNIT_ASSERT_EQUAL(std::string("10.0.0.2"),
                         proxies.clientAddress("10.0.0.1", forwarded("10.0.0.2, 10.0.0.1")));
  }

  void testCidrBlocks() {
    const TrustedProxies proxies = TrustedProxies::parse("10.0.0.0/8,192.168.4.0/22");
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("10.200.3.4", forwarded("203.0.113.9")));
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("192.168.7.255", forwarded("203.0.113.9")));
    CPPUNIT_ASSERT_EQUAL(std::string("192.168.8.1"),
                         proxies.clientAddress("192.168.8.1", forwarded("203.0.113.9")));
    CPPUNIT_ASSERT_EQUAL(std::string("11.0.0.1"),
                         proxies.clientAddress("11.0.0.1", forwarded("203.0.113.9")));
    const TrustedProxies everyone = TrustedProxies::parse("0.0.0.0/0");
    CPPUNIT_ASSERT_EQUAL(std::string("1.2.3.4"),
                         everyone.clientAddress("8.8.8.8", forwarded("1.2.3.4, 5.6.7.8")));
  }

  void testIpv6() {
    const TrustedProxies proxies = TrustedProxies::parse("::1, fd00::/8");
    CPPUNIT_ASSERT_EQUAL(std::string("2001:db8::7"),
                         proxies.clientAddress("::1", forwarded("2001:DB8:0::7")));
    CPPUNIT_ASSERT_EQUAL(std::string("203.0.113.9"),
                         proxies.clientAddress("fd12:3456::1", forwarded("203.0.113.9, fd00::2")));
    CPPUNIT_ASSERT_EQUAL(std::string("fe00::1"),
                         proxies.clientAddress("fe00::1", forwarded("203.0.113.9")));
    // An IPv4 block does not cover IPv6 addresses, nor the reverse.
    const TrustedProxies v4 = TrustedProxies::parse("0.0.0.0/0");
    CPPUNIT_ASSERT_EQUAL(std::string("::1"), v4.clientAddress("::1", forwarded("203.0.113.9")));
  }

  void testGarbageKeepsThePeer() {
    const TrustedProxies proxies = TrustedProxies::parse("10.0.0.1");
    for (const std::string header : {"", " ", "not-an-address", "203.0.113.9:4711", "[2001:db8::1]",
                                     "203.0.113.9,", "unknown", "203.0.113.256", "fe80::1%eth0"}) {
      CPPUNIT_ASSERT_EQUAL_MESSAGE(header, std::string("10.0.0.1"),
                                   proxies.clientAddress("10.0.0.1", forwarded(header)));
    }
    // A peer that is no address at all is never trusted.
    CPPUNIT_ASSERT_EQUAL(std::string("local"),
                         proxies.clientAddress("local", forwarded("203.0.113.9")));
  }

  void testRefusesBadEntries() {
    for (const std::string list : {"10.0.0.1,,10.0.0.2", "proxy.internal", "10.0.0.0/33",
                                   "10.0.0.0/", "::1/129", "10.0.0.0/8x", "10.0.0.1:80"}) {
      try {
        TrustedProxies::parse(list);
        CPPUNIT_FAIL("accepted " + list);
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_MESSAGE(e.what(),
                               std::string(e.what()).rfind("server.trusted_proxies: '", 0) == 0);
      }
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TrustedProxiesTest);
