// The instruments: histogram buckets and sums, refused bounds, exact
// counts from many threads at once (relaxed atomics lose nothing), the
// request metrics' series and the registry's collectors.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "metrics/Metrics.h"
#include "metrics/Registry.h"

using namespace std::chrono_literals;
using namespace rapport::host::metrics;

namespace {

bool contains(const std::string& text, const std::string& line) {
  return text.find(line) != std::string::npos;
}

}  // namespace

class InstrumentsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(InstrumentsTest);
  CPPUNIT_TEST(testHistogramSnapshot);
  CPPUNIT_TEST(testHistogramRefusesUnorderedBounds);
  CPPUNIT_TEST(testCountsAreExactAcrossThreads);
  CPPUNIT_TEST(testRequestSeriesByRouteMethodStatus);
  CPPUNIT_TEST(testRequestRouteTextDecidesNotItsAddress);
  CPPUNIT_TEST(testRegistryRunsCollectorsInOrderUntilRemoved);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testHistogramSnapshot() {
    Histogram h({0.5, 1});
    h.observe(-5ms);  // a clock that went back counts as 0
    h.observe(750ms);
    h.observe(1500ms);
    const HistogramSnapshot s = h.snapshot();
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), s.cumulative.size());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), s.cumulative[0]);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), s.cumulative[1]);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(3), s.cumulative[2]);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(3), s.count());
    CPPUNIT_ASSERT_DOUBLES_EQUAL(2.25, s.sumSeconds, 1e-9);
  }

  void testHistogramRefusesUnorderedBounds() {
    CPPUNIT_ASSERT_THROW(Histogram({1, 0.5}), std::invalid_argument);
    CPPUNIT_ASSERT_THROW(Histogram({1, 1}), std::invalid_argument);
  }

  void testCountsAreExactAcrossThreads() {
    Counter counter;
    Histogram histogram(latencyBuckets());
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 25000; ++i) {
          counter.inc();
          histogram.observe(1ms);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(100000), counter.value());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(100000), histogram.snapshot().count());
    CPPUNIT_ASSERT_DOUBLES_EQUAL(100.0, histogram.snapshot().sumSeconds, 1e-6);
  }

  void testRequestSeriesByRouteMethodStatus() {
    registerHostMetrics();
    const std::string route = "/v1/test-a/{id}";
    requestServed(route, "GET", 200, 1ms);
    requestServed(route, "GET", 200, 1ms);
    requestServed(route, "DELETE", 404, 1ms);
    requestServed(kUnmatchedRoute, "BREW", 405, 1ms);  // invented methods fold to "other"
    std::thread([&] { requestServed(route, "GET", 200, 1ms); }).join();
    const std::string text = registry().render();
    CPPUNIT_ASSERT_MESSAGE(text, contains(text,
                                          "rapport_http_requests_total{route=\"/v1/test-a/"
                                          "{id}\",method=\"GET\",status=\"200\"} 3\n"));
    CPPUNIT_ASSERT_MESSAGE(text, contains(text,
                                          "rapport_http_requests_total{route=\"/v1/test-a/"
                                          "{id}\",method=\"DELETE\",status=\"404\"} 1\n"));
    CPPUNIT_ASSERT_MESSAGE(text, contains(text,
                                          "rapport_http_requests_total{route=\"unmatched\","
                                          "method=\"other\",status=\"405\"} 1\n"));
    CPPUNIT_ASSERT_MESSAGE(text, !contains(text, "BREW"));
    CPPUNIT_ASSERT_MESSAGE(text, contains(text,
                                          "rapport_http_request_duration_seconds_count{"
                                          "route=\"/v1/test-a/{id}\"} 4\n"));
    CPPUNIT_ASSERT_MESSAGE(text, contains(text, "# TYPE process_open_fds gauge\n"));
  }

  // The per-thread cache is keyed by where the route text lives: another
  // text at the same address must get its own series.
  void testRequestRouteTextDecidesNotItsAddress() {
    char buffer[] = "/v1/test-b/one";
    requestServed(std::string_view(buffer), "GET", 200, 1ms);
    buffer[11] = 't';
    buffer[12] = 'w';
    buffer[13] = 'o';
    requestServed(std::string_view(buffer), "GET", 200, 1ms);
    const std::string text = registry().render();
    CPPUNIT_ASSERT_MESSAGE(text, contains(text,
                                          "{route=\"/v1/test-b/one\",method=\"GET\","
                                          "status=\"200\"} 1\n"));
    CPPUNIT_ASSERT_MESSAGE(text, contains(text,
                                          "{route=\"/v1/test-b/two\",method=\"GET\","
                                          "status=\"200\"} 1\n"));
  }

  void testRegistryRunsCollectorsInOrderUntilRemoved() {
    Registry r;
    const auto first = r.add([](TextWriter& out) { out.sample("a", {}, std::int64_t{1}); });
    {
      ScopedCollector second(r, [](TextWriter& out) { out.sample("b", {}, std::int64_t{2}); });
      CPPUNIT_ASSERT_EQUAL(std::string("a 1\nb 2\n"), r.render());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("a 1\n"), r.render());
    r.remove(first);
    CPPUNIT_ASSERT_EQUAL(std::string(), r.render());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(InstrumentsTest);
