// The server and helpers shared by the e2e.deals suites: pipelines, deals,
// contacts and companies enabled.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "e2e/companies/CrmApi.h"

namespace rapport::e2e::crm {

inline ServerProcess& dealsServer() {
  static ServerProcess server(crmSettings("pipelines,deals,contacts,companies"));
  return server;
}

// A pipeline as POST /v1/crm/pipelines answered it, and its stage ids in order.
struct Pipeline {
  std::string id;
  std::vector<std::string> stages;
  Json json;
};

// POST /v1/crm/pipelines {name, stages: [{name, probability}]} as `token` (an
// owner or admin), asserting 201.
inline Pipeline createPipeline(HttpClient& client, const std::string& token,
                               const std::string& name,
                               const std::vector<std::pair<std::string, int>>& stages) {
  Json list = Json::array();
  for (const auto& [stageName, probability] : stages) {
    list.push(Json::object({{"name", stageName}, {"probability", probability}}));
  }
  const Json data =
      create(client, token, "/v1/crm/pipelines", Json::object({{"name", name}, {"stages", list}}));
  Pipeline pipeline{
      .id = data["id"].asString(), .stages = pluck(data["stages"], "id"), .json = data};
  CPPUNIT_ASSERT_EQUAL_MESSAGE(data.dump(), stages.size(), pipeline.stages.size());
  return pipeline;
}

// A pipeline of three stages (10%, 50%, 90%).
inline Pipeline salesPipeline(HttpClient& client, const std::string& token,
                              const std::string& name = "Sales") {
  return createPipeline(client, token, name, {{"Lead", 10}, {"Proposal", 50}, {"Closing", 90}});
}

inline Json createDeal(HttpClient& client, const std::string& token, Json body) {
  return create(client, token, "/v1/crm/deals", body);
}

// A deal titled `title` in `stage` of `pipeline` (value `value`).
inline Json dealIn(HttpClient& client, const std::string& token, const Pipeline& pipeline,
                   std::size_t stage, const std::string& title, std::int64_t value = 0) {
  return createDeal(client, token,
                    Json::object({{"title", title},
                                  {"pipeline_id", pipeline.id},
                                  {"stage_id", pipeline.stages.at(stage)},
                                  {"value", value}}));
}

inline std::string dealPath(const Json& deal, const std::string& suffix = "") {
  return "/v1/crm/deals/" + deal["id"].asString() + suffix;
}

// GET /v1/crm/deals/{id} as `token`, asserting 200.
inline Json readDeal(HttpClient& client, const std::string& token, const Json& deal) {
  return E2E_ASSERT_DATA(200, client.get(dealPath(deal), bearer(token)));
}

// Every event of `tenant` about deal `id`, as (type, data), oldest first.
inline std::vector<std::pair<std::string, Json>> dealEvents(const ServerProcess& server,
                                                            const std::string& tenant,
                                                            const std::string& id) {
  std::vector<std::pair<std::string, Json>> out;
  numberEvents(server.databaseUrl());
  for (const auto& row :
       queryDatabase(server.databaseUrl(),
                     "SELECT type, data FROM events WHERE company_id = " + sqlQuote(tenant) +
                         " AND type LIKE 'crm.deal.%' ORDER BY sequence")) {
    Json data = Json::parse(row.at(1));
    if (data["id"] == Json(id)) out.emplace_back(row.at(0), std::move(data));
  }
  return out;
}

// The event types of `events`, in order.
inline std::vector<std::string> typesOf(const std::vector<std::pair<std::string, Json>>& events) {
  std::vector<std::string> types;
  for (const auto& event : events) types.push_back(event.first);
  return types;
}

}  // namespace rapport::e2e::crm
