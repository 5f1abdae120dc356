// What the e2e.connections tests share: the requests they send, the open-file
// limit of the test process, and the shape of the answers the front end writes
// itself when it refuses or times out a request (408, 503).
#pragma once

#include <sys/resource.h>

#include <cppunit/extensions/HelperMacros.h>

#include <cctype>
#include <chrono>
#include <regex>
#include <sstream>
#include <string>

#include "e2e/common/Api.h"
#include "e2e/connections/RawConnection.h"

namespace rapport::e2e {

// The public request every test sends: no credentials, no database.
inline const std::string kVersionsRequest = "GET /v1/versions HTTP/1.1\r\nHost: x\r\n\r\n";
// The same head without its blank line: a head that never finishes.
inline const std::string kUnfinishedHead = "GET /v1/versions HTTP/1.1\r\nHost: x\r\n";

// Raises this process's open-file soft limit to its hard limit: the crowd
// tests hold more sockets than the usual soft limit of 1024.
inline rlim_t raiseOpenFileLimit() {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
  ::getrlimit(RLIMIT_NOFILE, &limit);
  return limit.rlim_cur;
}

inline long long millisecondsBetween(RawConnection::Clock::time_point from,
                                     RawConnection::Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

// Whether the response carries Connection: close (the value compared
// without regard to case, as HTTP wants).
inline bool saysClose(const rapport::test::HttpResult& result) {
  std::string value = result.header("Connection");
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return value == "close";
}

// A refusal or time-out the front end writes itself: `status`, the error
// envelope ({"message": non-empty string}), JSON, and Connection: close. The
// message text is the server's to choose and is not compared.
inline void assertClosingError(int status, const rapport::test::HttpResult& result,
                               const CppUnit::SourceLine& line) {
  assertError(status, result, line);
  const std::string type = result.header("Content-Type");
  if (type.rfind("application/json", 0) != 0)
    CppUnit::Asserter::fail(
        CppUnit::Message("Content-Type is not application/json", describe(result)), line);
  if (!saysClose(result))
    CppUnit::Asserter::fail(CppUnit::Message("no Connection: close", describe(result)), line);
}

#define CONNECTIONS_ASSERT_CLOSING_ERROR(status, result) \
  ::rapport::e2e::assertClosingError((status), (result), CPPUNIT_SOURCELINE())

// The connection ends with an orderly close (EOF), nothing more said, within
// `limit`. Returns when it was seen.
inline RawConnection::Clock::time_point assertClosedSilently(RawConnection& connection,
                                                             std::chrono::milliseconds limit,
                                                             const CppUnit::SourceLine& line) {
  const RawConnection::Ending ending = connection.waitForClose(limit);
  if (ending.kind != RawConnection::Ending::Kind::Closed || !ending.bytes.empty())
    CppUnit::Asserter::fail(CppUnit::Message("expected a close (EOF) with no bytes within " +
                                                 std::to_string(limit.count()) + " ms",
                                             describe(ending)),
                            line);
  return ending.at;
}

#define CONNECTIONS_ASSERT_CLOSED_SILENTLY(connection, limit) \
  ::rapport::e2e::assertClosedSilently((connection), (limit), CPPUNIT_SOURCELINE())

// Settings that load the gate fixture module (tests/fixtures/modules/gate:
// GET /v1/gate/hold waits for `dir`/open, GET /v1/gate/large?bytes=N) and
// serve metrics on a port of their own.
inline ServerProcess::Settings gateSettings(const std::string& dir,
                                            ServerProcess::Settings extra = {}) {
  extra.emplace("modules.dir", testModulesDir());
  extra.emplace("modules.enabled", "gate");
  extra.emplace("gate.dir", dir);
  extra.emplace("metrics.listen", "127.0.0.1:0");
  return generousSettings(std::move(extra));
}

// The value of one sample of the server's metrics (`series`: name and
// labels exactly as written), -1 when absent. The server must have been
// started with metrics.listen (gateSettings does).
inline double metricSample(const ServerProcess& server, const std::string& series) {
  static const std::regex listening(R"(msg="metrics listening" host=127\.0\.0\.1 port=(\d+))");
  std::smatch port;
  const std::string log = server.log();
  if (!std::regex_search(log, port, listening)) CPPUNIT_FAIL("no metrics port in the log:\n" + log);
  HttpClient client(std::stoi(port[1]));
  std::istringstream in(client.get("/metrics").body);
  for (std::string line; std::getline(in, line);) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

// rapport_http_connections_closed_total or _refused_total for `reason`.
inline double closedFor(const ServerProcess& server, const std::string& reason) {
  return metricSample(server, "rapport_http_connections_closed_total{reason=\"" + reason + "\"}");
}
inline double refusedFor(const ServerProcess& server, const std::string& reason) {
  return metricSample(server, "rapport_http_connections_refused_total{reason=\"" + reason + "\"}");
}

}  // namespace rapport::e2e
