// The Prometheus text format writer (version 0.0.4): HELP and TYPE lines,
// escaping of HELP text and label values, number spelling, and a
// histogram's _bucket (cumulative, le="+Inf" last), _sum and _count. The
// expected texts are written out in full: the format is the contract.
#include <cppunit/extensions/HelperMacros.h>

#include <cmath>
#include <limits>

#include "metrics/Family.h"
#include "metrics/TextFormat.h"

using namespace std::chrono_literals;
using namespace rapport::host::metrics;

class TextFormatTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(TextFormatTest);
  CPPUNIT_TEST(testCounterFamily);
  CPPUNIT_TEST(testHelpEscapesBackslashAndNewline);
  CPPUNIT_TEST(testLabelValuesEscapeBackslashQuoteAndNewline);
  CPPUNIT_TEST(testNumbers);
  CPPUNIT_TEST(testHistogramBucketsAreCumulativeWithInf);
  CPPUNIT_TEST(testHistogramWithLabels);
  CPPUNIT_TEST(testFamilyWritesEachCombinationOnce);
  CPPUNIT_TEST(testEmptyFamilyWritesNothing);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testCounterFamily() {
    TextWriter out;
    out.family("rapport_x_total", "Things counted.", Type::Counter);
    out.sample("rapport_x_total", {}, std::uint64_t{42});
    out.sample("rapport_x_total", {{"a", "1"}, {"b", "two"}}, std::uint64_t{7});
    CPPUNIT_ASSERT_EQUAL(std::string("# HELP rapport_x_total Things counted.\n"
                                     "# TYPE rapport_x_total counter\n"
                                     "rapport_x_total 42\n"
                                     "rapport_x_total{a=\"1\",b=\"two\"} 7\n"),
                         out.text());
  }

  void testHelpEscapesBackslashAndNewline() {
    CPPUNIT_ASSERT_EQUAL(std::string("a\\\\b\\nc \"quoted\""), escapeHelp("a\\b\nc \"quoted\""));
    TextWriter out;
    out.family("g", "line one\nline two", Type::Gauge);
    CPPUNIT_ASSERT_EQUAL(std::string("# HELP g line one\\nline two\n# TYPE g gauge\n"), out.text());
  }

  void testLabelValuesEscapeBackslashQuoteAndNewline() {
    CPPUNIT_ASSERT_EQUAL(std::string("C:\\\\dir \\\"x\\\"\\n{id}"),
                         escapeLabelValue("C:\\dir \"x\"\n{id}"));
    TextWriter out;
    out.sample("m", {{"route", "/v1/a/{id}"}, {"odd", "say \"hi\"\\\n"}}, std::int64_t{-3});
    CPPUNIT_ASSERT_EQUAL(std::string("m{route=\"/v1/a/{id}\",odd=\"say \\\"hi\\\"\\\\\\n\"} -3\n"),
                         out.text());
  }

  void testNumbers() {
    CPPUNIT_ASSERT_EQUAL(std::string("0"), formatNumber(0.0));
    CPPUNIT_ASSERT_EQUAL(std::string("1"), formatNumber(1.0));
    CPPUNIT_ASSERT_EQUAL(std::string("0.0005"), formatNumber(0.0005));
    CPPUNIT_ASSERT_EQUAL(std::string("2.5"), formatNumber(2.5));
    CPPUNIT_ASSERT_EQUAL(std::string("29298688"), formatNumber(29298688.0));
    CPPUNIT_ASSERT_EQUAL(std::string("-0.25"), formatNumber(-0.25));
    CPPUNIT_ASSERT_EQUAL(std::string("1e-09"), formatNumber(1e-9));
    CPPUNIT_ASSERT_EQUAL(std::string("1e+20"), formatNumber(1e20));
    CPPUNIT_ASSERT_EQUAL(std::string("+Inf"),
                         formatNumber(std::numeric_limits<double>::infinity()));
    CPPUNIT_ASSERT_EQUAL(std::string("-Inf"),
                         formatNumber(-std::numeric_limits<double>::infinity()));
    CPPUNIT_ASSERT_EQUAL(std::string("NaN"), formatNumber(std::nan("")));
  }

  void testHistogramBucketsAreCumulativeWithInf() {
    Histogram h({0.001, 0.01, 0.1});
    h.observe(500us);  // <= 0.001
    h.observe(1ms);    // == 0.001: a bound is inclusive
    h.observe(20ms);   // <= 0.1
    h.observe(2s);     // only +Inf
    TextWriter out;
    out.family("d_seconds", "Durations.", Type::Histogram);
    out.histogram("d_seconds", {}, h.snapshot());
    CPPUNIT_ASSERT_EQUAL(std::string("# HELP d_seconds Durations.\n"
                                     "# TYPE d_seconds histogram\n"
                                     "d_seconds_bucket{le=\"0.001\"} 2\n"
                                     "d_seconds_bucket{le=\"0.01\"} 2\n"
                                     "d_seconds_bucket{le=\"0.1\"} 3\n"
                                     "d_seconds_bucket{le=\"+Inf\"} 4\n"
                                     "d_seconds_sum 2.0215\n"
                                     "d_seconds_count 4\n"),
                         out.text());
  }

  void testHistogramWithLabels() {
    Histogram h({1});
    TextWriter out;
    out.histogram("d", {{"route", "/x"}}, h.snapshot());
    CPPUNIT_ASSERT_EQUAL(std::string("d_bucket{route=\"/x\",le=\"1\"} 0\n"
                                     "d_bucket{route=\"/x\",le=\"+Inf\"} 0\n"
                                     "d_sum{route=\"/x\"} 0\n"
                                     "d_count{route=\"/x\"} 0\n"),
                         out.text());
  }

  void testFamilyWritesEachCombinationOnce() {
    Family<Counter> family("r_total", "R.", {"route", "status"});
    Counter& a = family.with({"/b", "200"});
    CPPUNIT_ASSERT(&a == &family.with({"/b", "200"}));
    a.inc();
    a.inc(2);
    family.with({"/a", "404"}).inc();
    TextWriter out;
    family.write(out, Type::Counter);
    // Sorted by label values, whatever the order of first use.
    CPPUNIT_ASSERT_EQUAL(std::string("# HELP r_total R.\n"
                                     "# TYPE r_total counter\n"
                                     "r_total{route=\"/a\",status=\"404\"} 1\n"
                                     "r_total{route=\"/b\",status=\"200\"} 3\n"),
                         out.text());
  }

  void testEmptyFamilyWritesNothing() {
    Family<Gauge> family("g", "G.", {"job"});
    TextWriter out;
    family.write(out, Type::Gauge);
    CPPUNIT_ASSERT_EQUAL(std::string(), out.text());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(TextFormatTest);
