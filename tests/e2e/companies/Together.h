// Requests released together, for the race tests of the CRM suites
// (e2e.contacts, e2e.companies, e2e.references): each thread has its own
// connection, opened and used once before the start, so the requests leave
// at the same moment instead of in connection order.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <latch>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "e2e/common/Api.h"

namespace rapport::e2e::crm {

// Runs request(client, i) for i in [0, count) on `count` threads, each with
// its own HttpClient to `port`, all released by one latch. Returns the
// answers by i. A request that throws (no answer) gives status 0 and the
// exception's text as reason, so the caller's assertions name it.
inline std::vector<HttpResult> sendTogether(
    int port, std::size_t count,
    const std::function<HttpResult(HttpClient&, std::size_t)>& request) {
  std::vector<HttpResult> results(count);
  std::latch start(static_cast<std::ptrdiff_t>(count));
  std::vector<std::thread> threads;
  threads.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      HttpClient client(port);
      bool connected = false;
      try {
        connected = client.get("/healthz").status == 200;  // connect before the start
      } catch (const std::exception&) {
      }
      start.arrive_and_wait();
      try {
        if (!connected) throw std::runtime_error("could not reach the server before the start");
        results[i] = request(client, i);
      } catch (const std::exception& e) {
        results[i] = HttpResult{};
        results[i].reason = std::string("no answer: ") + e.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  return results;
}

// "201 x1, 409 x7" for failure messages.
inline std::string statusSummary(const std::vector<HttpResult>& results) {
  std::map<int, int> counts;
  for (const auto& result : results) ++counts[result.status];
  std::string out;
  for (const auto& [status, n] : counts) {
    if (!out.empty()) out += ", ";
    out += std::to_string(status) + " x" + std::to_string(n);
  }
  return out;
}

}  // namespace rapport::e2e::crm
