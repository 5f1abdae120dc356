// VersionPolicy: defaults, configured versions, path rules, the sunset
// instant, GET /v1/versions data, and refusal of bad configuration.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>

#include "http/IsoInstant.h"
#include "http/VersionPolicy.h"
#include "rapport/time.h"
#include "unit/http/Fakes.h"

using rapport::Json;
using rapport::host::parseIsoInstant;
using rapport::host::VersionPolicy;
using rapport::host::VersionVerdict;
using rapport::test::FakeConfig;

namespace {

std::int64_t at(const char* iso) {
  return *parseIsoInstant(iso);
}

const std::string* header(const VersionVerdict& verdict, const std::string& name) {
  for (const auto& [key, value] : verdict.headers) {
    if (key == name) return &value;
  }
  return nullptr;
}

FakeConfig legacyConfig() {
  return FakeConfig{{"versions", "v1, v0"},
                    {"versions.v0.status", "sunset"},
                    {"versions.v0.released_at", "2025-01-01"},
                    {"versions.v0.deprecated_at", "2025-06-01"},
                    {"versions.v0.sunset_at", "2026-01-01"},
                    {"deprecations", "legacy,old_notes"},
                    {"deprecations.legacy.prefix", "/v1/crm/legacy"},
                    {"deprecations.legacy.deprecated_at", "2026-02-01"},
                    {"deprecations.legacy.sunset_at", "2026-12-31T00:00:00Z"},
                    {"deprecations.legacy.link", "https://docs.rapport.dev/migrate"},
                    {"deprecations.legacy.successor", "https://api.rapport.dev/v2/crm"},
                    {"deprecations.old_notes.prefix", "/v1/crm/notes/"},
                    {"deprecations.old_notes.deprecated_at", "2025-01-01"},
                    {"deprecations.old_notes.sunset_at", "2026-03-01"}};
}

}  // namespace

class VersionPolicyTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(VersionPolicyTest);
  CPPUNIT_TEST(testIsoInstant);
  CPPUNIT_TEST(testDefaults);
  CPPUNIT_TEST(testRuleHeadersBeforeSunset);
  CPPUNIT_TEST(testRuleGoneFromSunsetInstant);
  CPPUNIT_TEST(testPrefixOnSegmentBoundary);
  CPPUNIT_TEST(testOnlyConfiguredLinks);
  CPPUNIT_TEST(testSunsetVersionGoneEverywhere);
  CPPUNIT_TEST(testDeprecatedVersion);
  CPPUNIT_TEST(testVersionsJson);
  CPPUNIT_TEST(testBadConfigurationRefused);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testIsoInstant() {
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, *parseIsoInstant("1970-01-01"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{86'400'000'000LL * 366}, *parseIsoInstant("1971-01-02"));
    CPPUNIT_ASSERT_EQUAL(*parseIsoInstant("2026-12-31"), *parseIsoInstant("2026-12-31T00:00:00Z"));
    CPPUNIT_ASSERT(parseIsoInstant("2024-02-29").has_value());
    CPPUNIT_ASSERT(!parseIsoInstant("2025-02-29").has_value());
    CPPUNIT_ASSERT(!parseIsoInstant("2025-13-01").has_value());
    CPPUNIT_ASSERT(!parseIsoInstant("soon").has_value());
    CPPUNIT_ASSERT(!parseIsoInstant("2025-01-01Tnoon").has_value());
  }

  void testDefaults() {
    const VersionPolicy policy(FakeConfig{});
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, policy.versions().size());
    const VersionVerdict v = policy.evaluate("/v1/crm/contacts", at("2026-06-01"));
    CPPUNIT_ASSERT(!v.gone);
    CPPUNIT_ASSERT(v.headers.empty());
    CPPUNIT_ASSERT(policy.evaluate("/v9/x", 0).headers.empty());
    CPPUNIT_ASSERT(!policy.evaluate("/healthz", 0).gone);
  }

  void testRuleHeadersBeforeSunset() {
    const VersionPolicy policy(legacyConfig());
    const VersionVerdict v = policy.evaluate("/v1/crm/legacy/items", at("2026-06-01"));
    CPPUNIT_ASSERT(!v.gone);
    CPPUNIT_ASSERT_EQUAL(std::string("2026-02-01"), *header(v, "Deprecation"));
    CPPUNIT_ASSERT_EQUAL(std::string("2026-12-31T00:00:00Z"), *header(v, "Sunset"));
    CPPUNIT_ASSERT_EQUAL(std::string("<https://docs.rapport.dev/migrate>; rel=\"deprecation\", "
                                     "<https://api.rapport.dev/v2/crm>; rel=\"successor-version\""),
                         *header(v, "Link"));
  }

  void testRuleGoneFromSunsetInstant() {
    const VersionPolicy policy(legacyConfig());
    const std::int64_t sunset = at("2026-12-31T00:00:00Z");
    CPPUNIT_ASSERT(!policy.evaluate("/v1/crm/legacy", sunset - 1).gone);
    const VersionVerdict v = policy.evaluate("/v1/crm/legacy", sunset);
    CPPUNIT_ASSERT(v.gone);
    CPPUNIT_ASSERT_EQUAL(std::string("This endpoint has been sunset."), v.goneMessage);
    CPPUNIT_ASSERT(header(v, "Sunset") != nullptr);  // headers stay on the 410
  }

  void testPrefixOnSegmentBoundary() {
    const VersionPolicy policy(legacyConfig());
    CPPUNIT_ASSERT(policy.evaluate("/v1/crm/legacyx", at("2026-06-01")).headers.empty());
    CPPUNIT_ASSERT(policy.evaluate("/v1/crm", at("2026-06-01")).headers.empty());
    // A configured trailing slash is the same prefix.
    CPPUNIT_ASSERT(policy.evaluate("/v1/crm/notes", at("2026-06-01")).gone);
    CPPUNIT_ASSERT(policy.evaluate("/v1/crm/notes/n1", at("2026-06-01")).gone);
  }

  void testOnlyConfiguredLinks() {
    const VersionPolicy policy(legacyConfig());
    const VersionVerdict v = policy.evaluate("/v1/crm/notes/n1", at("2026-01-01"));
    CPPUNIT_ASSERT(header(v, "Link") == nullptr);
    FakeConfig config{{"deprecations", "r"},
                      {"deprecations.r.prefix", "/v1/r"},
                      {"deprecations.r.successor", "https://x/v2/r"}};
    const VersionVerdict s = VersionPolicy(config).evaluate("/v1/r", 0);
    CPPUNIT_ASSERT_EQUAL(std::string("<https://x/v2/r>; rel=\"successor-version\""),
                         *header(s, "Link"));
    CPPUNIT_ASSERT_EQUAL(std::string("true"), *header(s, "Deprecation"));
    CPPUNIT_ASSERT(header(s, "Sunset") == nullptr);
    CPPUNIT_ASSERT(!s.gone);
  }

  void testSunsetVersionGoneEverywhere() {
    const VersionPolicy policy(legacyConfig());
    const VersionVerdict v = policy.evaluate("/v0/anything/at/all", at("2025-01-01"));
    CPPUNIT_ASSERT(v.gone);
    CPPUNIT_ASSERT_EQUAL(std::string("This API version has been sunset."), v.goneMessage);
    CPPUNIT_ASSERT_EQUAL(std::string("2026-01-01"), *header(v, "Sunset"));
    CPPUNIT_ASSERT(policy.evaluate("/v0", 0).gone);
    CPPUNIT_ASSERT(!policy.evaluate("/v1/crm/contacts", 0).gone);
  }

  void testDeprecatedVersion() {
    FakeConfig config{{"versions", "v1,v2"},
                      {"versions.v1.status", "deprecated"},
                      {"versions.v1.deprecated_at", "2026-03-01"},
                      {"versions.v1.sunset_at", "2027-03-01"},
                      {"versions.v1.successor", "https://docs.rapport.dev/v2"}};
    const VersionPolicy policy(config);
    const VersionVerdict v = policy.evaluate("/v1/crm/contacts", at("2026-06-01"));
    CPPUNIT_ASSERT(!v.gone);
    CPPUNIT_ASSERT_EQUAL(std::string("2026-03-01"), *header(v, "Deprecation"));
    CPPUNIT_ASSERT_EQUAL(std::string("2027-03-01"), *header(v, "Sunset"));
    CPPUNIT_ASSERT(header(v, "Link") != nullptr);
    CPPUNIT_ASSERT(policy.evaluate("/v2/crm/contacts", at("2026-06-01")).headers.empty());
    // Past its own sunset date a deprecated version has ended too.
    CPPUNIT_ASSERT(policy.evaluate("/v1/crm/contacts", at("2027-03-01")).gone);
  }

  void testVersionsJson() {
    const Json list = VersionPolicy(legacyConfig()).versionsJson();
    CPPUNIT_ASSERT_EQUAL(std::string("[{\"version\":\"v1\",\"status\":\"active\","
                                     "\"released_at\":\"2026-01-01\",\"deprecated_at\":null,"
                                     "\"sunset_at\":null,\"docs_url\":\"https://docs.rapport.dev/"
                                     "v1\"},{\"version\":\"v0\",\"status\":\"sunset\","
                                     "\"released_at\":\"2025-01-01\",\"deprecated_at\":\"2025-06-"
                                     "01\",\"sunset_at\":\"2026-01-01\",\"docs_url\":\"https://"
                                     "docs.rapport.dev/v0\"}]"),
                         list.dump());
  }

  void testBadConfigurationRefused() {
    CPPUNIT_ASSERT_THROW(VersionPolicy(FakeConfig{{"versions.v1.status", "retired"}}),
                         std::invalid_argument);
    CPPUNIT_ASSERT_THROW(VersionPolicy(FakeConfig{{"versions.v1.sunset_at", "next year"}}),
                         std::invalid_argument);
    CPPUNIT_ASSERT_THROW(VersionPolicy(FakeConfig{{"deprecations", "x"}}), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(
        VersionPolicy(FakeConfig{{"deprecations", "x"}, {"deprecations.x.prefix", "v1/x"}}),
        std::invalid_argument);
    try {
      VersionPolicy(FakeConfig{{"deprecations", "x"},
                               {"deprecations.x.prefix", "/v1/x"},
                               {"deprecations.x.sunset_at", "2026-02-30"}});
      CPPUNIT_FAIL("impossible date accepted");
    } catch (const std::invalid_argument& e) {
      CPPUNIT_ASSERT(std::string(e.what()).find("deprecations.x.sunset_at") != std::string::npos);
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(VersionPolicyTest);
