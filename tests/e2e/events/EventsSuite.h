// The servers and helpers shared by the e2e.events suites: GET /v1/events and
// POST /v1/webhooks/{id}/replay (docs/events.md).
//
// The server runs the CRM modules and webhooks with the delivery settings of
// e2e.webhooks (a test receiver, a short retry schedule) and ONE delivery
// worker, so deliveries reach the receiver in the order they are due.
#pragma once

#include <string>
#include <vector>

#include "e2e/webhooks/WebhooksSuite.h"

namespace rapport::e2e::events {

using namespace rapport::e2e::webhooks;

inline ServerProcess::Settings eventsSettings(ServerProcess::Settings extra = {}) {
  extra.emplace("webhooks.workers", "1");
  return deliverySettings(std::move(extra));
}

// The server most tests share.
inline ServerProcess& eventsServer() {
  static ServerProcess server(eventsSettings());
  return server;
}

// GET /v1/events?<query> as `token`, asserting 200: the whole body.
inline Json readEvents(HttpClient& client, const std::string& token, const std::string& query) {
  return getBody(client, token, "/v1/events" + (query.empty() ? "" : "?" + query));
}

// Every event of `types` (comma-separated; empty: all), paged `limit` at a
// time from the start, asserting each page's cursor and has_more.
inline std::vector<Json> allEvents(HttpClient& client, const std::string& token,
                                   const std::string& types = "", int limit = 100) {
  std::vector<Json> out;
  std::string cursor;
  for (int pages = 0; pages < 1000; ++pages) {
    std::string query = "limit=" + std::to_string(limit);
    if (!types.empty()) query += "&type=" + types;
    if (!cursor.empty()) query += "&after=" + cursor;
    const Json body = readEvents(client, token, query);
    for (const Json& event : body["data"].asArray()) out.push_back(event);
    if (!body["meta"]["has_more"].asBool()) return out;
    cursor = std::to_string(body["meta"]["next_cursor"].asInt());
  }
  CPPUNIT_FAIL("the event log never ended");
  return out;
}

// The `data.id` of each event, in order.
inline std::vector<std::string> recordIds(const std::vector<Json>& events) {
  std::vector<std::string> ids;
  for (const Json& event : events) ids.push_back(event["data"]["id"].asString());
  return ids;
}

// POST /v1/webhooks/{id}/replay with `body` as `token`.
inline HttpResult replay(HttpClient& client, const std::string& token, const Json& webhook,
                         const Json& body) {
  return client.post(webhookPath(webhook, "/replay"), body, bearer(token));
}

}  // namespace rapport::e2e::events
