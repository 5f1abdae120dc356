// The servers and helpers shared by the e2e.webhooks suites.
//
// Delivery servers run every CRM module plus webhooks with the settings a
// test receiver needs (webhooks.allow_private_targets, webhooks.ca_file =
// the TestCa, a 2 s time-out, a retry schedule of seconds "0,1,1,1,1,1"), a
// fixed secrets.key (so a restart on the same database opens the sealed
// secrets) and the generous rate limit. Receivers (support/webhooks/Receiver.h) are made per
// test; a webhook's URL is https://localhost:<port>/<path>.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "e2e/companies/CrmApi.h"
#include "support/TestCa.h"
#include "support/webhooks/DeliveryTally.h"
#include "support/webhooks/Receiver.h"
#include "support/webhooks/Signature.h"

namespace rapport::e2e::webhooks {

using namespace rapport::e2e::crm;
// Receiver, Answer, ReceivedRequest, parseSignature, signedWith, tallyDeliveries
// (tests/support/webhooks).
using namespace rapport::test::webhooks;
using namespace std::chrono_literals;
using rapport::test::opensslHmacSha256;
using rapport::test::runTool;

inline const std::string kAllModules = "contacts,companies,pipelines,deals,activities,webhooks";
// The retry schedule of the delivery servers: 6 attempts, 1 s apart.
inline const std::string kShortSchedule = "0,1,1,1,1,1";
constexpr int kAttempts = 6;
constexpr auto kTimeout = 2s;  // webhooks.timeout of the delivery servers

// A secrets.key for this test process (base64 of 32 random bytes, from
// `openssl rand`): every server of the process seals with it.
inline const std::string& secretsKey() {
  static const std::string key = [] {
    std::string text = runTool("openssl", {"rand", "-base64", "32"});
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
  }();
  return key;
}

// Settings of a server that delivers to test receivers (see above).
inline ServerProcess::Settings deliverySettings(ServerProcess::Settings extra = {}) {
  extra.emplace("modules.enabled", kAllModules);
  extra.emplace("webhooks.allow_private_targets", "true");
  extra.emplace("webhooks.ca_file", rapport::test::testCertificates().caFile);
  extra.emplace("webhooks.timeout", std::to_string(kTimeout.count()));
  extra.emplace("webhooks.retry_schedule", kShortSchedule);
  extra.emplace("secrets.key", secretsKey());
  return generousSettings(std::move(extra));
}

// The delivery server most tests share.
inline ServerProcess& deliveryServer() {
  static ServerProcess server(deliverySettings());
  return server;
}

// A server with the default guard (no private targets): the forgery tests.
inline ServerProcess& guardedServer() {
  static ServerProcess server(
      generousSettings({{"modules.enabled", kAllModules}, {"secrets.key", secretsKey()}}));
  return server;
}

// ---------------------------------------------------------------- accounts

// A new user added to `owner`'s company as `role`, with a token for that
// company.
inline Account joinAs(HttpClient& client, const Account& owner, const std::string& role,
                      const std::string& label) {
  Account member = registerUser(client, label);
  E2E_ASSERT_DATA(201, client.post("/v1/company/members",
                                   Json::object({{"email", member.email}, {"role", role}}),
                                   bearer(owner.token)));
  member.token = switchContext(client, member.token, owner.companyId);
  member.companyId = owner.companyId;
  return member;
}

// ---------------------------------------------------------------- webhooks

inline Json eventsList(std::initializer_list<const char*> events) {
  Json list = Json::array();
  for (const char* event : events) list.push(Json(event));
  return list;
}

// POST /v1/webhooks {url, events} (+ `extra` members) as `token`, asserting
// 201; returns data (with the secret).
inline Json createWebhook(HttpClient& client, const std::string& token, const std::string& url,
                          const Json& events, const Json& extra = Json::object()) {
  Json body = Json::object({{"url", url}, {"events", events}});
  for (const auto& [key, value] : extra.asObject()) body.set(key, value);
  return E2E_ASSERT_DATA(201, client.post("/v1/webhooks", body, bearer(token)));
}

inline std::string webhookPath(const Json& webhook, const std::string& suffix = "") {
  return "/v1/webhooks/" + webhook["id"].asString() + suffix;
}

// GET /v1/webhooks/{id}/deliveries?<query> as `token`, asserting 200: the whole body.
inline Json deliveriesOf(HttpClient& client, const std::string& token, const Json& webhook,
                         const std::string& query = "per_page=100") {
  return getBody(client, token, webhookPath(webhook, "/deliveries?" + query));
}

// GET /v1/webhooks/{id}/deliveries/{deliveryId}, asserting 200: data.
inline Json deliveryOf(HttpClient& client, const std::string& token, const Json& webhook,
                       const std::string& deliveryId) {
  return E2E_ASSERT_DATA(
      200, client.get(webhookPath(webhook, "/deliveries/" + deliveryId), bearer(token)));
}

// Polls the deliveries of `webhook` until `condition` holds for the list's
// data (every 20 ms, at most `limit`); returns the last data seen.
inline Json waitForDeliveries(HttpClient& client, const std::string& token, const Json& webhook,
                              const std::function<bool(const Json& data)>& condition,
                              std::chrono::milliseconds limit) {
  Json data;
  const bool held = waitUntil(
      [&] {
        data = deliveriesOf(client, token, webhook)["data"];
        return condition(data);
      },
      limit);
  if (!held) CPPUNIT_FAIL("deliveries never reached the expected state: " + data.dump());
  return data;
}

// Polls one delivery until `condition` holds (at most `limit`); returns it.
inline Json waitForDelivery(HttpClient& client, const std::string& token, const Json& webhook,
                            const std::string& deliveryId,
                            const std::function<bool(const Json& delivery)>& condition,
                            std::chrono::milliseconds limit) {
  Json delivery;
  const bool held = waitUntil(
      [&] {
        delivery = deliveryOf(client, token, webhook, deliveryId);
        return condition(delivery);
      },
      limit);
  if (!held) CPPUNIT_FAIL("delivery never reached the expected state: " + delivery.dump());
  return delivery;
}

inline bool isFinal(const Json& delivery) {
  return delivery["status"].asString() != "pending";
}

// ---------------------------------------------------------------- JSON

// Equal as JSON values: objects compared as sets of members (order free),
// arrays in order.
inline bool sameJson(const Json& a, const Json& b) {
  if (a.isObject() && b.isObject()) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, value] : a.asObject()) {
      const Json* other = b.find(key);
      if (other == nullptr || !sameJson(value, *other)) return false;
    }
    return true;
  }
  if (a.isArray() && b.isArray()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!sameJson(a.asArray()[i], b.asArray()[i])) return false;
    }
    return true;
  }
  return a == b;
}

// `value` as text with object members sorted by name (order-free comparison
// of whole values, as keys of sets).
inline std::string canonical(const Json& value) {
  if (value.isObject()) {
    std::vector<std::pair<std::string, std::string>> members;
    for (const auto& [key, member] : value.asObject()) members.emplace_back(key, canonical(member));
    std::sort(members.begin(), members.end());
    std::string out = "{";
    for (const auto& [key, member] : members) out += Json(key).dump() + ":" + member + ",";
    return out + "}";
  }
  if (value.isArray()) {
    std::string out = "[";
    for (const Json& item : value.asArray()) out += canonical(item) + ",";
    return out + "]";
  }
  return value.dump();
}

// An event type and its data as one comparable string.
inline std::string eventKey(const std::string& event, const Json& data) {
  return event + " " + canonical(data);
}

#define WEBHOOKS_ASSERT_SAME_JSON(expected, actual)                                         \
  CPPUNIT_ASSERT_MESSAGE("expected " + (expected).dump() + "\n  actual " + (actual).dump(), \
                         ::rapport::e2e::webhooks::sameJson((expected), (actual)))

}  // namespace rapport::e2e::webhooks
