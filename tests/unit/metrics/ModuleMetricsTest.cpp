// The families modules report through the SDK (Registry::metrics, host
// metrics/ModuleMetrics): what a declaration may name, and what a scrape
// writes from a collector's samples (declared order, labels, values), what
// it drops, and that a failing collector leaves only its own families out.
// The expected texts are written out in full.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>

#include "metrics/ModuleMetrics.h"

using namespace rapport::host::metrics;
using rapport::MetricFamily;
using rapport::MetricSample;
using rapport::MetricType;

namespace {

std::string scrape(const ModuleMetrics& metrics) {
  TextWriter out;
  metrics.collector()(out);
  return out.take();
}

rapport::MetricCollector returning(std::vector<MetricSample> samples) {
  return [samples] { return samples; };
}

}  // namespace

class ModuleMetricsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ModuleMetricsTest);
  CPPUNIT_TEST(testFamiliesInDeclaredOrderWithTheirSamples);
  CPPUNIT_TEST(testBadNamesAndDuplicatesAreRefused);
  CPPUNIT_TEST(testMismatchedSamplesAreDropped);
  CPPUNIT_TEST(testFailingCollectorLeavesOnlyItsFamiliesOut);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testFamiliesInDeclaredOrderWithTheirSamples() {
    ModuleMetrics metrics;
    CPPUNIT_ASSERT(metrics.empty());
    metrics.add(
        "tickets",
        {{.name = "rapport_tickets_open",
          .help = "Open tickets.",
          .type = MetricType::Gauge,
          .labels = {"priority"}},
         {.name = "rapport_tickets_closed_total",
          .help = "Tickets closed.",
          .type = MetricType::Counter,
          .labels = {}},
         {.name = "rapport_tickets_unused", .help = "None this time."}},
        returning({{.family = "rapport_tickets_closed_total", .labelValues = {}, .value = 7},
                   {.family = "rapport_tickets_open", .labelValues = {"high"}, .value = 2},
                   {.family = "rapport_tickets_open", .labelValues = {"a \"b\""}, .value = 0.5}}));
    CPPUNIT_ASSERT(!metrics.empty());
    CPPUNIT_ASSERT_EQUAL(std::string("# HELP rapport_tickets_open Open tickets.\n"
                                     "# TYPE rapport_tickets_open gauge\n"
                                     "rapport_tickets_open{priority=\"high\"} 2\n"
                                     "rapport_tickets_open{priority=\"a \\\"b\\\"\"} 0.5\n"
                                     "# HELP rapport_tickets_closed_total Tickets closed.\n"
                                     "# TYPE rapport_tickets_closed_total counter\n"
                                     "rapport_tickets_closed_total 7\n"),
                         scrape(metrics));
  }

  void testBadNamesAndDuplicatesAreRefused() {
    ModuleMetrics metrics;
    const auto refused = [&](MetricFamily family) {
      try {
        metrics.add("tickets", {std::move(family)}, returning({}));
      } catch (const std::logic_error& e) {
        return std::string(e.what()).find("module 'tickets'") != std::string::npos;
      }
      return false;
    };
    CPPUNIT_ASSERT(refused({.name = "tickets_open", .help = "h"}));  // not rapport_
    CPPUNIT_ASSERT(refused({.name = "rapport_tickets-open", .help = "h"}));
    CPPUNIT_ASSERT(refused({.name = "rapport_tickets open", .help = "h"}));
    CPPUNIT_ASSERT(refused({.name = "rapport_tickets_open", .help = ""}));
    CPPUNIT_ASSERT(refused({.name = "rapport_tickets_open", .help = "h", .labels = {"__x"}}));
    CPPUNIT_ASSERT(refused({.name = "rapport_tickets_open", .help = "h", .labels = {"a:b"}}));
    CPPUNIT_ASSERT(refused({.name = "rapport_tickets_open", .help = "h", .labels = {"1a"}}));
    CPPUNIT_ASSERT(metrics.empty());
    metrics.add("tickets", {{.name = "rapport_tickets_open", .help = "h", .labels = {"a_1"}}},
                returning({}));
    // Declared already, by this module or another.
    CPPUNIT_ASSERT(refused({.name = "rapport_tickets_open", .help = "h"}));
    CPPUNIT_ASSERT_THROW(
        metrics.add("other", {{.name = "rapport_tickets_open", .help = "h"}}, returning({})),
        std::logic_error);
    CPPUNIT_ASSERT_THROW(
        metrics.add("other",
                    {{.name = "rapport_x", .help = "h"}, {.name = "rapport_x", .help = "h"}},
                    returning({})),
        std::logic_error);
    CPPUNIT_ASSERT_THROW(metrics.add("other", {{.name = "rapport_y", .help = "h"}}, nullptr),
                         std::logic_error);
  }

  void testMismatchedSamplesAreDropped() {
    ModuleMetrics metrics;
    metrics.add(
        "tickets", {{.name = "rapport_tickets_open", .help = "Open.", .labels = {"priority"}}},
        returning({{.family = "rapport_tickets_open", .labelValues = {}, .value = 1},
                   {.family = "rapport_undeclared", .labelValues = {}, .value = 1},
                   {.family = "rapport_tickets_open", .labelValues = {"low"}, .value = 3}}));
    CPPUNIT_ASSERT_EQUAL(std::string("# HELP rapport_tickets_open Open.\n"
                                     "# TYPE rapport_tickets_open gauge\n"
                                     "rapport_tickets_open{priority=\"low\"} 3\n"),
                         scrape(metrics));
  }

  void testFailingCollectorLeavesOnlyItsFamiliesOut() {
    ModuleMetrics metrics;
    bool fail = true;
    metrics.add("broken", {{.name = "rapport_broken", .help = "B."}}, [&fail] {
      if (fail) throw std::runtime_error("no database");
      return std::vector<MetricSample>{{.family = "rapport_broken", .labelValues = {}, .value = 1}};
    });
    metrics.add("fine", {{.name = "rapport_fine", .help = "F."}},
                returning({{.family = "rapport_fine", .labelValues = {}, .value = 4}}));
    const std::string fine = "# HELP rapport_fine F.\n# TYPE rapport_fine gauge\nrapport_fine 4\n";
    CPPUNIT_ASSERT_EQUAL(fine, scrape(metrics));
    // The next scrape calls it again.
    fail = false;
    CPPUNIT_ASSERT_EQUAL(
        "# HELP rapport_broken B.\n# TYPE rapport_broken gauge\nrapport_broken 1\n" + fine,
        scrape(metrics));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ModuleMetricsTest);
