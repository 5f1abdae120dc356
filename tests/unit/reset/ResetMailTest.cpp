// The reset mail (ResetMail.h) and the reset settings (ResetOptions.h).
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>

#include "AccountsTestSupport.h"
#include "accounts/reset/ResetMail.h"
#include "accounts/reset/ResetOptions.h"

using rapport::test::accounts::MapConfig;
namespace reset = rapport::host::accounts::reset;

class ResetMailTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ResetMailTest);
  CPPUNIT_TEST(testLinkEncodesBothValues);
  CPPUNIT_TEST(testLetterWithoutLink);
  CPPUNIT_TEST(testLetterWithLink);
  CPPUNIT_TEST(testOptions);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testLinkEncodesBothValues() {
    CPPUNIT_ASSERT_EQUAL(
        std::string("https://app.example.com/reset/abc-_~9?email=a%2Bb%40x.com&t=abc-_~9"),
        reset::resetLink("https://app.example.com/reset/{token}?email={email}&t={token}", "abc-_~9",
                         "a+b@x.com"));
    // Characters that would end or split a query value are encoded.
    CPPUNIT_ASSERT_EQUAL(std::string("http://h/?e=a%26b%3Dc%23%20%7Btoken%7D%40x"),
                         reset::resetLink("http://h/?e={email}", "T", "a&b=c# {token}@x"));
  }

  void testLetterWithoutLink() {
    const auto letter = reset::resetLetter("Ann@Example.com", "TOKEN", 3600, "");
    CPPUNIT_ASSERT_EQUAL(std::string("Ann@Example.com"), letter.to);
    CPPUNIT_ASSERT_EQUAL(std::string("password-reset"), letter.purpose);
    CPPUNIT_ASSERT_EQUAL(std::string("TOKEN"), letter.code);
    std::string all;
    for (const auto& p : letter.paragraphs) all += p + "\n";
    CPPUNIT_ASSERT(all.find("Ann@Example.com") != std::string::npos);
    CPPUNIT_ASSERT(all.find("60 minutes") != std::string::npos);
    CPPUNIT_ASSERT(all.find("http") == std::string::npos);
    // A TTL under a minute is promised as one minute, never more.
    const auto brief = reset::resetLetter("a@x.com", "T", 1, "");
    CPPUNIT_ASSERT(brief.paragraphs[1].find("1 minute") != std::string::npos);
    CPPUNIT_ASSERT(brief.paragraphs[1].find("1 minutes") == std::string::npos);
    CPPUNIT_ASSERT(reset::resetLetter("a@x.com", "T", 90, "").paragraphs[1].find("2 minutes") !=
                   std::string::npos);
  }

  void testLetterWithLink() {
    const auto letter =
        reset::resetLetter("a@x.com", "TOK", 3600, "https://app/reset?token={token}&email={email}");
    std::string all;
    for (const auto& p : letter.paragraphs) all += p + "\n";
    CPPUNIT_ASSERT(all.find("https://app/reset?token=TOK&email=a%40x.com") != std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::string("TOK"), letter.code);  // still shown, to paste
  }

  void testOptions() {
    MapConfig config;
    const auto defaults = reset::ResetOptions::fromConfig(config);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3600), defaults.tokenTtl);
    CPPUNIT_ASSERT_EQUAL(std::string(), defaults.resetUrl);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), defaults.forgotMaxRequests);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3600), defaults.forgotWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(10), defaults.resetMaxAttempts);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3600), defaults.resetWindow);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(60), defaults.minInterval);
    config.values = {{"auth.reset_ttl", "120"},
                     {"auth.reset_url", "https://app/r?t={token}"},
                     {"auth.reset.forgot_max_requests", "3"},
                     {"auth.reset.min_interval", "0"}};
    const auto set = reset::ResetOptions::fromConfig(config);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(120), set.tokenTtl);
    CPPUNIT_ASSERT_EQUAL(std::string("https://app/r?t={token}"), set.resetUrl);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), set.forgotMaxRequests);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), set.minInterval);
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, std::string>>{{"auth.reset_ttl", "0"},
                                                          {"auth.reset_ttl", "604801"},
                                                          {"auth.reset_url", "ftp://app/{token}"},
                                                          {"auth.reset_url", "https://app/reset"},
                                                          {"auth.reset.forgot_max_requests", "0"},
                                                          {"auth.reset.max_attempts", "0"},
                                                          {"auth.reset.window", "0"},
                                                          {"auth.reset.min_interval", "-1"}}) {
      MapConfig bad;
      bad.values = {{key, value}};
      CPPUNIT_ASSERT_THROW_MESSAGE(key + "=" + value, reset::ResetOptions::fromConfig(bad),
                                   std::invalid_argument);
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ResetMailTest);
