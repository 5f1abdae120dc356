// The server and helpers of e2e.batch: POST /v1/crm/<collection>/batch
// (docs/api-choices.md "Batch writes") on a server with every CRM module.
#pragma once

#include <string>
#include <vector>

#include "e2e/activities/ActivitiesSuite.h"
#include "e2e/companies/CrmApi.h"

namespace rapport::e2e::batch {

using namespace rapport::e2e::crm;

inline ServerProcess& batchServer() {
  static ServerProcess server(crmSettings("contacts,companies,pipelines,deals,activities"));
  return server;
}

inline Json createItem(Json data) {
  return Json::object({{"action", "create"}, {"data", std::move(data)}});
}

inline Json updateItem(const std::string& id, Json data) {
  return Json::object({{"action", "update"}, {"id", id}, {"data", std::move(data)}});
}

inline Json upsertItem(Json data) {
  return Json::object({{"action", "upsert"}, {"data", std::move(data)}});
}

// POST `collection`/batch {"items": items} as `token`.
inline HttpResult postBatch(HttpClient& client, const std::string& token,
                            const std::string& collection, Json::Array items) {
  return client.post(collection + "/batch", Json::object({{"items", Json(std::move(items))}}),
                     bearer(token));
}

// The results of a batch answered 200 "Batch processed.", one per item.
inline Json::Array assertResults(const HttpResult& result, std::size_t count,
                                 const CppUnit::SourceLine& line) {
  const Json data = assertData(200, result, line);
  if (result.json()["message"] != Json("Batch processed.") || !data.isArray() ||
      data.size() != count) {
    CppUnit::Asserter::fail(
        CppUnit::Message("not " + std::to_string(count) + " results", describe(result)), line);
  }
  return data.asArray();
}
#define BATCH_ASSERT_RESULTS(result, count) \
  ::rapport::e2e::batch::assertResults((result), (count), CPPUNIT_SOURCELINE())

// The statuses of `results`, in order.
inline std::vector<std::int64_t> statusesOf(const Json::Array& results) {
  std::vector<std::int64_t> out;
  for (const Json& result : results) out.push_back(result["status"].asInt());
  return out;
}

// How many events of `type` `tenant`'s log holds.
inline std::size_t eventCount(const ServerProcess& server, const std::string& tenant,
                              const std::string& type) {
  return queryDatabase(server.databaseUrl(), "SELECT id FROM events WHERE company_id = " +
                                                 sqlQuote(tenant) + " AND type = " + sqlQuote(type))
      .size();
}

// The total of GET `collection` as `token`.
inline std::int64_t totalOf(HttpClient& client, const std::string& token,
                            const std::string& collection) {
  return getBody(client, token, collection)["meta"]["total"].asInt();
}

}  // namespace rapport::e2e::batch
