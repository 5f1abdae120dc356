// The request-forgery guard: every address class on both sides of its
// boundaries, numeric host forms judged after resolution, URL syntax with its
// exact 422 messages, names that do not resolve, allow_private_targets.
#include <cppunit/extensions/HelperMacros.h>

#include <chrono>
#include <string>

#include "delivery/TargetGuard.h"

using rapport::webhooks::isPublicAddress;
using rapport::webhooks::parseTargetUrl;
using rapport::webhooks::TargetGuard;
using rapport::webhooks::TargetRefused;
using rapport::webhooks::TargetUnresolved;

namespace {

const std::string kNotPublic = "url must not point at a private, loopback or reserved address";
const std::string kInvalid = "url must be a valid https URL";

struct AddressCase {
  const char* address;
  bool isPublic;
};

// Each class of the TargetGuard.h comment, both sides of each boundary.
const AddressCase kAddresses[] = {
    // public IPv4, and the neighbours of the refused ranges
    {"8.8.8.8", true},
    {"1.1.1.1", true},
    {"0.255.255.255", false},
    {"1.0.0.0", true},
    {"0.0.0.0", false},
    {"9.255.255.255", true},
    {"10.0.0.0", false},
    {"10.255.255.255", false},
    {"11.0.0.0", true},
    {"100.63.255.255", true},
    {"100.64.0.0", false},
    {"100.127.255.255", false},
    {"100.128.0.0", true},
    {"126.255.255.255", true},
    {"127.0.0.1", false},
    {"127.255.255.254", false},
    {"128.0.0.0", true},
    {"169.253.255.255", true},
    {"169.254.0.1", false},
    {"169.254.169.254", false},
    {"169.255.0.0", true},
    {"172.15.255.255", true},
    {"172.16.0.0", false},
    {"172.31.255.255", false},
    {"172.32.0.0", true},
    {"192.0.0.8", false},
    {"192.0.1.1", true},
    {"192.0.2.1", false},
    {"192.88.99.1", false},
    {"192.167.255.255", true},
    {"192.168.0.1", false},
    {"192.168.255.255", false},
    {"192.169.0.0", true},
    {"198.17.255.255", true},
    {"198.18.0.0", false},
    {"198.19.255.255", false},
    {"198.20.0.0", true},
    {"198.51.100.7", false},
    {"203.0.113.9", false},
    {"223.255.255.255", true},
    {"224.0.0.1", false},
    {"239.255.255.255", false},
    {"240.0.0.1", false},
    {"255.255.255.255", false},
    // IPv6
    {"::", false},
    {"::1", false},
    {"::2", false},
    {"::127.0.0.1", false},
    {"::ffff:10.0.0.1", false},
    {"::ffff:127.0.0.1", false},
    {"::ffff:169.254.169.254", false},
    {"::ffff:8.8.8.8", true},
    {"64:ff9b::7f00:1", false},
    {"64:ff9b::a00:1", false},
    {"64:ff9b::808:808", true},
    {"64:ff9b:1::1", false},
    {"100::1", false},
    {"2001::1", false},
    {"2001:db8::1", false},
    {"2002:7f00:1::", false},
    {"2002:a9fe:a9fe::1", false},
    {"2002:808:808::1", true},
    {"3fff::1", false},
    {"2606:4700:4700::1111", true},
    {"2a00:1450:4001:81b::200e", true},
    {"fbff:ffff::1", false},
    {"fc00::1", false},
    {"fd12:3456::1", false},
    {"fe80::1", false},
    {"febf::1", false},
    {"fec0::1", false},
    {"ff02::1", false},
    {"ff0e::1", false},
};

}  // namespace

class TargetGuardTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TargetGuardTest);
  CPPUNIT_TEST(testAddressClasses);
  CPPUNIT_TEST(testNumericFormsRefused);
  CPPUNIT_TEST(testPublicNumericAddressesPass);
  CPPUNIT_TEST(testSyntax);
  CPPUNIT_TEST(testParsedParts);
  CPPUNIT_TEST(testUnresolvedNamePassesRegistration);
  CPPUNIT_TEST(testAllowPrivate);
  CPPUNIT_TEST(testResolveForDelivery);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testAddressClasses() {
    for (const AddressCase& c : kAddresses) {
      const Poco::Net::IPAddress address(c.address);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(c.address, c.isPublic, isPublicAddress(address));
    }
  }

  void testNumericFormsRefused() {
    const TargetGuard guard(false, std::chrono::milliseconds(2000));
    for (const std::string host :
         {"2130706433", "0177.0.0.1", "0x7f000001", "0x7f.1", "127.1", "[::1]",
          "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "localhost", "LOCALHOST", "0", "0.0.0.0",
          "169.254.169.254", "2852039166", "[64:ff9b::a9fe:a9fe]", "10.1", "[fe80::1]", "[::]"}) {
      const std::string url = "https://" + host + "/hook";
      const auto message = guard.checkForRegistration(url);
      CPPUNIT_ASSERT_MESSAGE(url, message.has_value());
      CPPUNIT_ASSERT_EQUAL_MESSAGE(url, kNotPublic, *message);
      CPPUNIT_ASSERT_THROW_MESSAGE(url, guard.resolveForDelivery(url), TargetRefused);
    }
  }

  void testPublicNumericAddressesPass() {
    const TargetGuard guard(false, std::chrono::milliseconds(2000));
    for (const std::string url :
         {"https://8.8.8.8/x", "https://134744072/x", "https://[2606:4700:4700::1111]:8443/x",
          "https://[::ffff:8.8.8.8]/x"}) {
      CPPUNIT_ASSERT_MESSAGE(url, !guard.checkForRegistration(url).has_value());
      const TargetGuard::Resolved resolved = guard.resolveForDelivery(url);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(url, std::size_t{1}, resolved.addresses.size());
    }
    // The decimal form is resolved to the address it stands for.
    const auto resolved = guard.resolveForDelivery("https://134744072/x");
    CPPUNIT_ASSERT_EQUAL(std::string("8.8.8.8"), resolved.addresses.front().toString());
  }

  void testSyntax() {
    const TargetGuard guard(false, std::chrono::milliseconds(500));
    const std::string longPath(2048 - std::string("https://example.com/").size(), 'a');
    CPPUNIT_ASSERT(!guard.checkSyntax("https://example.com/" + longPath).has_value());
    CPPUNIT_ASSERT_EQUAL(std::string("url must be at most 2048 characters"),
                         *guard.checkSyntax("https://example.com/" + longPath + "a"));
    CPPUNIT_ASSERT_EQUAL(std::string("url must not contain credentials"),
                         *guard.checkSyntax("https://user:pass@example.com/"));
    CPPUNIT_ASSERT_EQUAL(std::string("url must not contain credentials"),
                         *guard.checkSyntax("https://user@example.com/"));
    CPPUNIT_ASSERT_EQUAL(std::string("url must not contain credentials"),
                         *guard.checkForRegistration("https://@example.com/"));
    for (const std::string url : {"http://example.com/",
                                  "ftp://example.com/",
                                  "example.com/hook",
                                  "https://",
                                  "https:///path",
                                  "https://example.com/#frag",
                                  "https://example.com#",
                                  "https:example.com",
                                  "https://example.com:0/",
                                  "https://example.com:65536/",
                                  "https://example.com:99999/",
                                  "https://example.com:/",
                                  "https://example.com:12a/",
                                  "https://exa mple.com/",
                                  "https://example.com/ x",
                                  "https://ex%61mple.com/",
                                  "https://[::1/",
                                  "https://[fe80::1%25eth0]/",
                                  "https://[127.0.0.1]/",
                                  "https://exa$mple.com/",
                                  "https://.example.com/",
                                  "https://a..b/",
                                  "https://example.com/\n",
                                  "",
                                  "https://h:1:2/",
                                  "https://ex\xc3\xa4mple.com/"}) {
      const auto message = guard.checkSyntax(url);
      CPPUNIT_ASSERT_MESSAGE(url, message.has_value());
      CPPUNIT_ASSERT_EQUAL_MESSAGE(url, kInvalid, *message);
      CPPUNIT_ASSERT_EQUAL_MESSAGE(url, kInvalid, *guard.checkForRegistration(url));
      CPPUNIT_ASSERT_MESSAGE(url, !parseTargetUrl(url).has_value());
    }
    for (const std::string url :
         {"https://example.com", "HTTPS://Example.COM/Hook", "https://example.com:1/",
          "https://example.com:65535/a?b=c", "https://a-b_c.example.com/x",
          "https://[2606:4700:4700::1111]/"}) {
      CPPUNIT_ASSERT_MESSAGE(url, !guard.checkSyntax(url).has_value());
    }
  }

  void testParsedParts() {
    auto parsed = parseTargetUrl("HTTPS://Hooks.Example.COM:8443/In/%2Fx?a=1&b=%20");
    CPPUNIT_ASSERT(parsed.has_value());
    CPPUNIT_ASSERT_EQUAL(std::string("hooks.example.com"), parsed->host);
    CPPUNIT_ASSERT_EQUAL(static_cast<unsigned short>(8443), parsed->port);
    CPPUNIT_ASSERT_EQUAL(std::string("/In/%2Fx?a=1&b=%20"), parsed->pathAndQuery);

    parsed = parseTargetUrl("https://example.com");
    CPPUNIT_ASSERT_EQUAL(static_cast<unsigned short>(443), parsed->port);
    CPPUNIT_ASSERT_EQUAL(std::string("/"), parsed->pathAndQuery);

    parsed = parseTargetUrl("https://example.com?x=1");
    CPPUNIT_ASSERT_EQUAL(std::string("/?x=1"), parsed->pathAndQuery);

    parsed = parseTargetUrl("https://[2606:4700:4700::1111]:9000/p");
    CPPUNIT_ASSERT_EQUAL(std::string("2606:4700:4700::1111"), parsed->host);
    CPPUNIT_ASSERT_EQUAL(static_cast<unsigned short>(9000), parsed->port);
  }

  void testUnresolvedNamePassesRegistration() {
    const TargetGuard guard(false, std::chrono::milliseconds(3000));
    CPPUNIT_ASSERT(!guard.checkForRegistration("https://nx.invalid/hook").has_value());
    CPPUNIT_ASSERT_THROW(guard.resolveForDelivery("https://nx.invalid/hook"), TargetUnresolved);
  }

  void testAllowPrivate() {
    const TargetGuard guard(true, std::chrono::milliseconds(2000));
    CPPUNIT_ASSERT(!guard.checkForRegistration("https://127.0.0.1/hook").has_value());
    CPPUNIT_ASSERT(!guard.checkForRegistration("https://localhost:8443/hook").has_value());
    CPPUNIT_ASSERT(!guard.checkForRegistration("https://[::1]/hook").has_value());
    const auto resolved = guard.resolveForDelivery("https://localhost:8443/hook");
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), resolved.addresses.front().toString());
    // The syntax rules still apply.
    CPPUNIT_ASSERT_EQUAL(kInvalid, *guard.checkForRegistration("http://127.0.0.1/hook"));
    CPPUNIT_ASSERT_EQUAL(std::string("url must not contain credentials"),
                         *guard.checkForRegistration("https://a:b@127.0.0.1/hook"));
  }

  void testResolveForDelivery() {
    const TargetGuard guard(false, std::chrono::milliseconds(2000));
    try {
      guard.resolveForDelivery("https://0x7f.1:8443/x");
      CPPUNIT_FAIL("refused expected");
    } catch (const TargetRefused& e) {
      CPPUNIT_ASSERT_EQUAL(
          std::string("0x7f.1 resolves to 127.0.0.1, a private, loopback or reserved address"),
          std::string(e.what()));
    }
    CPPUNIT_ASSERT_THROW(guard.resolveForDelivery("http://8.8.8.8/"), TargetRefused);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TargetGuardTest);
