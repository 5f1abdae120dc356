// rapport time: formatting known instants and parsing ISO-8601 back.
#include <cppunit/extensions/HelperMacros.h>

#include "rapport/time.h"

using rapport::isoDate;
using rapport::isoTimestamp;
using rapport::parseIsoTimestamp;

class TimeTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TimeTest);
  CPPUNIT_TEST(testFormatKnownInstants);
  CPPUNIT_TEST(testFormatBeforeEpoch);
  CPPUNIT_TEST(testIsoDate);
  CPPUNIT_TEST(testParse);
  CPPUNIT_TEST(testParseOffsets);
  CPPUNIT_TEST(testParseRefusals);
  CPPUNIT_TEST(testRoundTripAcrossYears);
  CPPUNIT_TEST(testNow);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFormatKnownInstants() {
    CPPUNIT_ASSERT_EQUAL(std::string("1970-01-01T00:00:00.000000Z"), isoTimestamp(0));
    CPPUNIT_ASSERT_EQUAL(std::string("2023-11-14T22:13:20.123456Z"),
                         isoTimestamp(1700000000123456));
    CPPUNIT_ASSERT_EQUAL(std::string("2024-02-29T23:59:59.999999Z"),
                         isoTimestamp(1709251199999999));
    CPPUNIT_ASSERT_EQUAL(std::string("2000-03-01T00:00:00.000000Z"), isoTimestamp(951868800000000));
  }

  void testFormatBeforeEpoch() {
    CPPUNIT_ASSERT_EQUAL(std::string("1969-12-31T23:59:59.999999Z"), isoTimestamp(-1));
    CPPUNIT_ASSERT_EQUAL(std::string("1900-01-01T00:00:00.000000Z"),
                         isoTimestamp(-2208988800000000));
  }

  void testIsoDate() {
    CPPUNIT_ASSERT_EQUAL(std::string("1970-01-01"), isoDate(0));
    CPPUNIT_ASSERT_EQUAL(std::string("2023-11-14"), isoDate(1700000000123456));
    CPPUNIT_ASSERT_EQUAL(std::string("1969-12-31"), isoDate(-1));
  }

  void testParse() {
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, *parseIsoTimestamp("1970-01-01T00:00:00Z"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1700000000123456},
                         *parseIsoTimestamp("2023-11-14T22:13:20.123456Z"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1700000000100000},
                         *parseIsoTimestamp("2023-11-14T22:13:20.1Z"));
    // Nanoseconds are truncated to microseconds.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1700000000123456},
                         *parseIsoTimestamp("2023-11-14T22:13:20.123456789Z"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{-1}, *parseIsoTimestamp("1969-12-31T23:59:59.999999Z"));
  }

  void testParseOffsets() {
    const std::int64_t utc = 1700000000000000;
    CPPUNIT_ASSERT_EQUAL(utc, *parseIsoTimestamp("2023-11-15T00:13:20+02:00"));
    CPPUNIT_ASSERT_EQUAL(utc, *parseIsoTimestamp("2023-11-14T17:43:20-04:30"));
    CPPUNIT_ASSERT_EQUAL(utc, *parseIsoTimestamp("2023-11-14T22:13:20+00:00"));
    CPPUNIT_ASSERT_EQUAL(utc + 500000, *parseIsoTimestamp("2023-11-15T00:13:20.5+02:00"));
  }

  void testParseRefusals() {
    for (const char* text :
         {"", "2023-11-14", "2023-11-14T22:13:20", "2023-11-14 22:13:20Z", "2023-11-14t22:13:20Z",
          "2023-11-14T22:13:20z", "2023-11-14T24:00:00Z", "2023-11-14T23:60:00Z",
          "2023-11-14T23:59:60Z", "2023-02-29T00:00:00Z", "2023-11-14T22:13:20.Z",
          "2023-11-14T22:13:20.1234567890Z", "2023-11-14T22:13:20+0200",
          "2023-11-14T22:13:20+24:00", "2023-11-14T22:13:20+02:60", "2023-11-14T22:13Z",
          "2023-11-14T22:13:20Z ", "2023-11-14T2a:13:20Z", "2023-11-14T22:13:20+02:00Z"}) {
      CPPUNIT_ASSERT_MESSAGE(text, !parseIsoTimestamp(text));
    }
  }

  void testRoundTripAcrossYears() {
    // Every 37 days and some odd microseconds from 1960 to 2100.
    const std::int64_t step = 37LL * 86400 * 1000000 + 1234567;
    for (std::int64_t t = -315619200000000; t < 4102444800000000; t += step) {
      const std::string text = isoTimestamp(t);
      const auto parsed = parseIsoTimestamp(text);
      CPPUNIT_ASSERT_MESSAGE(text, parsed && *parsed == t);
      CPPUNIT_ASSERT_EQUAL(text.substr(0, 10), isoDate(t));
    }
  }

  void testNow() {
    const std::int64_t now = rapport::nowMicros();
    CPPUNIT_ASSERT(now > 1700000000000000);  // after November 2023
    CPPUNIT_ASSERT(rapport::nowMicros() >= now);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TimeTest);
