// Metrics and logs of a real rapportd (docs/operations.md): GET /metrics on
// metrics.listen (its own port; the public port answers 404 there), the
// exact counters a few API calls move (200, 401, 404, a rate-limit 429, a
// login-throttle 429), the output accepted by `promtool check metrics`
// (Debian package prometheus), and the access line in both log formats.
// Each test starts its own server, so counters start from zero.
#include <cppunit/extensions/HelperMacros.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>

#include "e2e/common/Api.h"
#include "e2e/common/Timely.h"

using namespace rapport::e2e;

namespace {

constexpr const char* kHour = "3600";

ServerProcess::Settings withMetrics(ServerProcess::Settings extra = {}) {
  extra.emplace("metrics.listen", "127.0.0.1:0");
  return extra;
}

// The metrics port the server logged ("metrics listening ... port=N").
int metricsPort(const ServerProcess& server) {
  static const std::regex line(R"(msg="metrics listening" host=127\.0\.0\.1 port=(\d+))");
  std::smatch m;
  const std::string log = server.log();
  CPPUNIT_ASSERT_MESSAGE(log, std::regex_search(log, m, line));
  return std::stoi(m[1]);
}

std::string scrape(int port) {
  HttpClient client(port);
  const HttpResult result = client.get("/metrics");
  CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), 200, result.status);
  CPPUNIT_ASSERT_EQUAL(std::string("text/plain; version=0.0.4; charset=utf-8"),
                       result.header("Content-Type"));
  return result.body;
}

// The value of the one sample line `series` (name and labels exactly as
// written), or -1 when the scrape has no such line.
double sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

#define ASSERT_SAMPLE(expected, text, series)                                         \
  CPPUNIT_ASSERT_EQUAL_MESSAGE(std::string(series) + "\n" + (text), double(expected), \
                               sample((text), (series)))

std::string requests(const std::string& route, const std::string& method, int status) {
  return "rapport_http_requests_total{route=\"" + route + "\",method=\"" + method + "\",status=\"" +
         std::to_string(status) + "\"}";
}

// `promtool check metrics` on `text`; returns its exit status and output.
int promtool(const std::string& text, const std::string& dir, std::string& output) {
  const std::string file = dir + "/scrape.txt";
  std::ofstream(file) << text;
  FILE* pipe = ::popen(("promtool check metrics < '" + file + "' 2>&1").c_str(), "r");
  CPPUNIT_ASSERT_MESSAGE("popen promtool", pipe != nullptr);
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The log lines of `server` that are access lines of request `id`.
std::vector<std::string> accessLines(const ServerProcess& server, const std::string& id,
                                     bool json) {
  std::vector<std::string> found;
  const std::string msg = json ? "\"msg\":\"request\"" : "msg=request ";
  const std::string req = json ? "\"req\":\"" + id + "\"" : "req=" + id + " ";
  for (const auto& line : linesContaining(server.log(), req)) {
    if (line.find(msg) != std::string::npos) found.push_back(line);
  }
  return found;
}

}  // namespace

class MetricsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MetricsTest);
  CPPUNIT_TEST(testScrapeCountsWhatHappened);
  CPPUNIT_TEST(testLoginThrottleRefusalsAreCounted);
  CPPUNIT_TEST(testJobsAndWebhookQueue);
  CPPUNIT_TEST(testNoListenerUnlessConfigured);
  CPPUNIT_TEST(testRefusesBadSettings);
  CPPUNIT_TEST(testAccessLineInText);
  CPPUNIT_TEST(testAccessLineInJson);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testScrapeCountsWhatHappened() {
    ServerProcess server(withMetrics({{"ratelimit.requests", "4"}, {"ratelimit.window", kHour}}));
    const int port = metricsPort(server);
    CPPUNIT_ASSERT(port != server.port());
    HttpClient client(server.port());
    awayFromWindowEdge(std::stoll(kHour));  // the five requests count in one window
    E2E_ASSERT_STATUS(200, client.get("/v1/versions"));
    E2E_ASSERT_ERROR(401, client.get("/v1/auth/me"));
    E2E_ASSERT_ERROR(404, client.get("/v1/no-such-thing"));
    // Never on the public port: there it is an unknown path like any other.
    E2E_ASSERT_ERROR(404, client.get("/metrics"));
    E2E_ASSERT_ERROR(429, client.get("/v1/auth/me"));  // the 5th of 4

    const std::string text = scrape(port);
    ASSERT_SAMPLE(1, text, requests("/v1/versions", "GET", 200));
    ASSERT_SAMPLE(1, text, requests("/v1/auth/me", "GET", 401));
    ASSERT_SAMPLE(1, text, requests("/v1/auth/me", "GET", 429));
    ASSERT_SAMPLE(2, text, requests("unmatched", "GET", 404));  // no path as a label
    ASSERT_SAMPLE(-1, text, requests("/v1/no-such-thing", "GET", 404));
    ASSERT_SAMPLE(1, text, "rapport_ratelimit_refusals_total");
    ASSERT_SAMPLE(0, text, "rapport_login_throttle_refusals_total");
    ASSERT_SAMPLE(2, text, "rapport_http_request_duration_seconds_count{route=\"/v1/auth/me\"}");
    ASSERT_SAMPLE(
        2, text, "rapport_http_request_duration_seconds_bucket{route=\"/v1/auth/me\",le=\"+Inf\"}");
    ASSERT_SAMPLE(1, text, "rapport_http_connections_open");  // `client`, kept alive
    ASSERT_SAMPLE(1, text, "rapport_http_connections_accepted_total");
    ASSERT_SAMPLE(0, text, "rapport_http_connections_closed_total{reason=\"header_timeout\"}");
    ASSERT_SAMPLE(0, text, "rapport_db_pool_acquire_timeouts_total");
    ASSERT_SAMPLE(0, text, "rapport_db_transactions_retried_total");
    CPPUNIT_ASSERT_MESSAGE(text, sample(text, "rapport_db_pool_sessions_in_use") >= 0);
    CPPUNIT_ASSERT_MESSAGE(text, sample(text, "process_resident_memory_bytes") > 1e6);
    CPPUNIT_ASSERT_MESSAGE(text, sample(text, "process_open_fds") > 3);
    CPPUNIT_ASSERT_MESSAGE(text, sample(text, "process_cpu_seconds_total") > 0);
    CPPUNIT_ASSERT_MESSAGE(text, std::abs(sample(text, "process_start_time_seconds") -
                                          static_cast<double>(unixNow())) < 120);

    std::string lint;
    CPPUNIT_ASSERT_EQUAL_MESSAGE(lint + "\n" + text, 0, promtool(text, server.workDir(), lint));
    CPPUNIT_ASSERT_EQUAL_MESSAGE(lint, std::string(), lint);

    // The metrics port serves nothing else.
    HttpClient metrics(port);
    CPPUNIT_ASSERT_EQUAL(404, metrics.get("/v1/versions").status);
    CPPUNIT_ASSERT_EQUAL(404, metrics.get("/").status);
    // A scrape is not a request of the API: the counters did not move.
    ASSERT_SAMPLE(1, scrape(port), requests("/v1/versions", "GET", 200));
  }

  void testLoginThrottleRefusalsAreCounted() {
    ServerProcess server(withMetrics({{"auth.login.max_attempts", "1"}}));
    HttpClient client(server.port());
    const std::string email = uniqueEmail("throttled");
    E2E_ASSERT_ERROR(401, login(client, email, "wrong password 1"));
    E2E_ASSERT_ERROR(429, login(client, email, "wrong password 2"));
    const std::string text = scrape(metricsPort(server));
    ASSERT_SAMPLE(1, text, "rapport_login_throttle_refusals_total");
    ASSERT_SAMPLE(0, text, "rapport_ratelimit_refusals_total");
    ASSERT_SAMPLE(1, text, requests("/v1/auth/login", "POST", 401));
    ASSERT_SAMPLE(1, text, requests("/v1/auth/login", "POST", 429));
  }

  void testJobsAndWebhookQueue() {
    ServerProcess server(withMetrics());
    const int port = metricsPort(server);
    // Jobs run shortly after start-up: wait for the first run of one.
    const std::string retention = "rapport_job_runs_total{job=\"events.retention\",outcome=\"ok\"}";
    std::string text;
    CPPUNIT_ASSERT_MESSAGE(text, waitUntil(
                                     [&] {
                                       text = scrape(port);
                                       return sample(text, retention) >= 1;
                                     },
                                     std::chrono::seconds(20)));
    ASSERT_SAMPLE(0, text, "rapport_job_runs_total{job=\"events.retention\",outcome=\"error\"}");
    const double lastRun =
        sample(text, "rapport_job_last_run_timestamp_seconds{job=\"events.retention\"}");
    CPPUNIT_ASSERT_MESSAGE(text, std::abs(lastRun - static_cast<double>(unixNow())) < 120);
    // The webhooks module is enabled (every first-party module is): its
    // queue is read at scrape time, and it is empty.
    ASSERT_SAMPLE(0, text, "rapport_webhook_deliveries{status=\"pending\"}");
    ASSERT_SAMPLE(0, text, "rapport_webhook_deliveries{status=\"success\"}");
    ASSERT_SAMPLE(0, text, "rapport_webhook_deliveries{status=\"failed\"}");
    ASSERT_SAMPLE(0, text, "rapport_webhook_oldest_pending_age_seconds");

    // Three deliveries written straight into the outbox, made 5 minutes
    // ago: one pending (paused: no next attempt, so no worker takes it),
    // one delivered, one failed.
    const std::string made = std::to_string((unixNow() - 300) * 1000000);
    const auto row = [&](const std::string& id, const std::string& status) {
      return "('" + id + "', 'cmp_metrics', 'whk_metrics', 'evt_" + id +
             "', 'crm.contact.created', "
             "'evt_occ_" +
             id + "', '{}', '" + status + "', 1, " + made + ")";
    };
    const auto inserted = queryDatabase(
        server.databaseUrl(),
        "INSERT INTO webhook_deliveries (id, company_id, webhook_id, envelope_id, event, event_id, "
        "payload, status, attempts, created_at) VALUES " +
            row("whd_m1", "pending") + ", " + row("whd_m2", "success") + ", " +
            row("whd_m3", "failed") + " RETURNING id");
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), inserted.size());
    text = scrape(port);
    ASSERT_SAMPLE(1, text, "rapport_webhook_deliveries{status=\"pending\"}");
    ASSERT_SAMPLE(1, text, "rapport_webhook_deliveries{status=\"success\"}");
    ASSERT_SAMPLE(1, text, "rapport_webhook_deliveries{status=\"failed\"}");
    const double age = sample(text, "rapport_webhook_oldest_pending_age_seconds");
    CPPUNIT_ASSERT_MESSAGE(text, age >= 300 && age < 400);
  }

  void testNoListenerUnlessConfigured() {
    ServerProcess server;
    const std::string log = server.log();
    CPPUNIT_ASSERT_MESSAGE(log, log.find("metrics listening") == std::string::npos);
    HttpClient client(server.port());
    E2E_ASSERT_ERROR(404, client.get("/metrics"));
  }

  void testRefusesBadSettings() {
    std::string output;
    CPPUNIT_ASSERT(ServerProcess::runToCompletion({{"metrics.listen", "9090"}}, {}, output) != 0);
    CPPUNIT_ASSERT_MESSAGE(output, output.find("metrics.listen must be host:port, e.g. "
                                               "127.0.0.1:9090 (got '9090')") != std::string::npos);
    output.clear();
    CPPUNIT_ASSERT(ServerProcess::runToCompletion({{"log.format", "xml"}}, {}, output) != 0);
    CPPUNIT_ASSERT_MESSAGE(
        output, output.find("log.format must be text or json (got 'xml')") != std::string::npos);
  }

  void testAccessLineInText() {
    ServerProcess server;
    HttpClient client(server.port());
    const HttpResult result = client.get("/v1/crm/contacts/con_nobody");
    E2E_ASSERT_ERROR(401, result);
    const std::string id = result.header("X-Request-Id");
    const auto lines = accessLines(server, id, false);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), std::size_t(1), lines.size());
    const std::regex expected("ts=\\S+ level=info msg=request req=" + id +
                              " method=GET route=/v1/crm/contacts/\\{id\\} "
                              "path=/v1/crm/contacts/con_nobody status=401 bytes=" +
                              std::to_string(result.body.size()) +
                              " ms=\\d+\\.\\d{3} client=127\\.0\\.0\\.1 principal=\"\"");
    CPPUNIT_ASSERT_MESSAGE(lines[0], std::regex_match(lines[0], expected));
  }

  void testAccessLineInJson() {
    ServerProcess server(ServerProcess::Settings{{"log.format", "json"}});
    HttpClient client(server.port());
    const HttpResult result = client.get("/v1/crm/contacts/con_nobody");
    E2E_ASSERT_ERROR(401, result);
    const HttpResult missing = client.get("/v1/nothing/here");
    E2E_ASSERT_ERROR(404, missing);

    // Every line of the log is one JSON object with ts, level and msg first.
    std::istringstream log(server.log());
    std::string line;
    int lines = 0;
    while (std::getline(log, line)) {
      const Json entry = Json::parse(line);
      const auto& members = entry.asObject();
      CPPUNIT_ASSERT_MESSAGE(line, members.size() >= 3);
      CPPUNIT_ASSERT_EQUAL(std::string("ts"), members[0].first);
      CPPUNIT_ASSERT_EQUAL(std::string("level"), members[1].first);
      CPPUNIT_ASSERT_EQUAL(std::string("msg"), members[2].first);
      ++lines;
    }
    CPPUNIT_ASSERT(lines > 5);

    const auto found = accessLines(server, result.header("X-Request-Id"), true);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), std::size_t(1), found.size());
    const Json entry = Json::parse(found[0]);
    CPPUNIT_ASSERT_EQUAL(std::string("info"), entry["level"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("GET"), entry["method"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/crm/contacts/{id}"), entry["route"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("/v1/crm/contacts/con_nobody"), entry["path"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("401"), entry["status"].asString());
    CPPUNIT_ASSERT_EQUAL(std::to_string(result.body.size()), entry["bytes"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("127.0.0.1"), entry["client"].asString());
    CPPUNIT_ASSERT_MESSAGE(found[0],
                           std::regex_match(entry["ms"].asString(), std::regex("\\d+\\.\\d{3}")));

    const auto unmatched = accessLines(server, missing.header("X-Request-Id"), true);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(server.log(), std::size_t(1), unmatched.size());
    CPPUNIT_ASSERT_EQUAL(std::string("unmatched"), Json::parse(unmatched[0])["route"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("404"), Json::parse(unmatched[0])["status"].asString());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MetricsTest);
