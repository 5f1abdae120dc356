// /proc/self/stat parsing (a command name with spaces and parentheses),
// the process figures of a real scrape, metrics.listen's refusals, and the
// listener on a real port: GET /metrics, 404 elsewhere, 405 for POST.
#include <cppunit/extensions/HelperMacros.h>

#include <stdexcept>

#include "metrics/Exporter.h"
#include "metrics/MetricsListener.h"
#include "metrics/ProcessMetrics.h"
#include "metrics/Registry.h"
#include "support/HttpClient.h"

using namespace rapport::host::metrics;

class ProcessAndListenerTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProcessAndListenerTest);
  CPPUNIT_TEST(testParsesProcStat);
  CPPUNIT_TEST(testRefusesMalformedProcStat);
  CPPUNIT_TEST(testProcessFiguresOfThisProcess);
  CPPUNIT_TEST(testParsesListenAddresses);
  CPPUNIT_TEST(testRefusesMalformedListenAddresses);
  CPPUNIT_TEST(testListenerServesMetricsOnly);
  CPPUNIT_TEST(testExporterOffWhenUnset);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testParsesProcStat() {
    // Fields 1..24 of proc(5); the command holds ") (" and spaces.
    const std::string stat =
        "4242 (rap) (port d) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 150 0 0 20 0 37 0 "
        "123400 1448640512 7153 18446744073709551615 1 1 0 0 0 0 0 4096 17642 0 0 0 17 1\n";
    const auto parsed = parseProcStat(stat, 100, 4096);
    CPPUNIT_ASSERT(parsed.has_value());
    CPPUNIT_ASSERT_DOUBLES_EQUAL(4.0, parsed->cpuSeconds, 1e-9);  // (250 + 150) / 100
    CPPUNIT_ASSERT_DOUBLES_EQUAL(1234.0, parsed->startSeconds, 1e-9);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(1448640512.0, parsed->virtualBytes, 1e-9);
    CPPUNIT_ASSERT_DOUBLES_EQUAL(7153.0 * 4096, parsed->residentBytes, 1e-9);
  }

  void testRefusesMalformedProcStat() {
    CPPUNIT_ASSERT(!parseProcStat("", 100, 4096).has_value());
    CPPUNIT_ASSERT(!parseProcStat("1 (x) S 1 2 3", 100, 4096).has_value());
    CPPUNIT_ASSERT(
        !parseProcStat("1 (x) S 1 1 1 0 -1 0 0 0 0 0 ten 5 0 0 20 0 1 0 9 9 9", 100, 4096)
             .has_value());
  }

  void testProcessFiguresOfThisProcess() {
    TextWriter out;
    writeProcessMetrics(out);
    const std::string& text = out.text();
    for (const char* name :
         {"process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_open_fds ",
          "process_start_time_seconds ", "process_virtual_memory_bytes "}) {
      CPPUNIT_ASSERT_MESSAGE(text, text.find(std::string("\n") + name) != std::string::npos);
    }
    // Started in the last day, not in 1970 nor in the future.
    const auto at = text.find("\nprocess_start_time_seconds ");
    const double start = std::stod(text.substr(at + 28));
    const double now = static_cast<double>(::time(nullptr));
    CPPUNIT_ASSERT_MESSAGE(text, start > now - 86400 && start <= now + 1);
  }

  void testParsesListenAddresses() {
    auto a = parseListenAddress("127.0.0.1:9090");
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), a.host);
    CPPUNIT_ASSERT_EQUAL(9090, a.port);
    a = parseListenAddress("[::1]:0");
    CPPUNIT_ASSERT_EQUAL(std::string("::1"), a.host);
    CPPUNIT_ASSERT_EQUAL(0, a.port);
    a = parseListenAddress("localhost:65535");
    CPPUNIT_ASSERT_EQUAL(std::string("localhost"), a.host);
    CPPUNIT_ASSERT_EQUAL(65535, a.port);
  }

  void testRefusesMalformedListenAddresses() {
    for (const char* bad : {"9090", ":9090", "127.0.0.1:", "127.0.0.1:x", "127.0.0.1:65536",
                            "127.0.0.1:-1", "::1:9090", "[::1:9090", "[]:9090", "h:90 "}) {
      try {
        parseListenAddress(bad);
        CPPUNIT_FAIL(std::string("accepted ") + bad);
      } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT_EQUAL(std::string("metrics.listen must be host:port, e.g. 127.0.0.1:9090 "
                                         "(got '") +
                                 bad + "')",
                             std::string(e.what()));
      }
    }
  }

  void testListenerServesMetricsOnly() {
    Registry r;
    r.add([](TextWriter& out) {
      out.family("t_total", "T.", Type::Counter);
      out.sample("t_total", {}, std::uint64_t{5});
    });
    MetricsListener listener(ListenAddress{"127.0.0.1", 0}, r);
    CPPUNIT_ASSERT(listener.port() > 0);
    rapport::test::HttpClient client(listener.port());
    const auto ok = client.get("/metrics");
    CPPUNIT_ASSERT_EQUAL(200, ok.status);
    CPPUNIT_ASSERT_EQUAL(std::string("text/plain; version=0.0.4; charset=utf-8"),
                         ok.header("Content-Type"));
    CPPUNIT_ASSERT_EQUAL(std::string("# HELP t_total T.\n# TYPE t_total counter\nt_total 5\n"),
                         ok.body);
    CPPUNIT_ASSERT_EQUAL(200, client.get("/metrics?x=1").status);
    CPPUNIT_ASSERT_EQUAL(404, client.get("/").status);
    CPPUNIT_ASSERT_EQUAL(404, client.get("/metrics/").status);
    CPPUNIT_ASSERT_EQUAL(404, client.get("/v1/metrics").status);
    const auto post = client.send("POST", "/metrics", std::string("x"));
    CPPUNIT_ASSERT_EQUAL(405, post.status);
    CPPUNIT_ASSERT_EQUAL(std::string("GET"), post.header("Allow"));
    // A taken port is refused with the address in the message.
    try {
      MetricsListener again(ListenAddress{"127.0.0.1", listener.port()}, r);
      CPPUNIT_FAIL("bound a port in use");
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      CPPUNIT_ASSERT_MESSAGE(what, what.find("metrics.listen: cannot listen on 127.0.0.1:" +
                                             std::to_string(listener.port())) == 0);
    }
  }

  void testExporterOffWhenUnset() {
    CPPUNIT_ASSERT(Exporter::start("", nullptr, nullptr) == nullptr);
    CPPUNIT_ASSERT_THROW(Exporter::start("nonsense", nullptr, nullptr), std::invalid_argument);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProcessAndListenerTest);
