// The server shared by the e2e.pipelines suites (only the pipelines module
// enabled) and the calls they repeat.
#pragma once

#include <string>
#include <vector>

#include "e2e/companies/CrmApi.h"

namespace rapport::e2e::pipelines {

using crm::getBody;
using crm::idsOf;

inline ServerProcess& pipelinesServer() {
  static ServerProcess server(generousSettings({{"modules.enabled", "pipelines"}}));
  return server;
}

inline const std::string kPipelines = "/v1/crm/pipelines";

inline std::string pipelinePath(const std::string& id) {
  return kPipelines + "/" + id;
}
inline std::string stagesPath(const std::string& pipelineId) {
  return pipelinePath(pipelineId) + "/stages";
}
inline std::string stagePath(const std::string& pipelineId, const std::string& stageId) {
  return stagesPath(pipelineId) + "/" + stageId;
}

// A stage item of a create body: {name[, order][, probability]}.
inline Json stageItem(const std::string& name, std::optional<int> order = std::nullopt,
                      std::optional<int> probability = std::nullopt) {
  Json item = Json::object({{"name", name}});
  if (order) item.set("order", *order);
  if (probability) item.set("probability", *probability);
  return item;
}

// POST /v1/crm/pipelines as `token`, asserting 201; returns data.
inline Json createPipeline(HttpClient& client, const std::string& token, const Json& body) {
  return E2E_ASSERT_DATA(201, client.post(kPipelines, body, bearer(token)));
}

// A pipeline named `name` with stages named `stages`, in that order.
inline Json createPipeline(HttpClient& client, const std::string& token, const std::string& name,
                           const std::vector<std::string>& stages = {}) {
  Json items = Json::array();
  for (const std::string& stage : stages) items.push(stageItem(stage));
  return createPipeline(client, token, Json::object({{"name", name}, {"stages", items}}));
}

// The same, for a literal name (picked over the Json overload).
inline Json createPipeline(HttpClient& client, const std::string& token, const char* name,
                           const std::vector<std::string>& stages = {}) {
  return createPipeline(client, token, std::string(name), stages);
}

// GET one pipeline, asserting 200; returns data.
inline Json readPipeline(HttpClient& client, const std::string& token, const std::string& id) {
  return E2E_ASSERT_DATA(200, client.get(pipelinePath(id), bearer(token)));
}

// The stage names of a pipeline (GET .../stages), in order; asserts each
// stage's order runs 1..n.
inline std::vector<std::string> stageNames(HttpClient& client, const std::string& token,
                                           const std::string& pipelineId) {
  const Json stages = E2E_ASSERT_DATA(200, client.get(stagesPath(pipelineId), bearer(token)));
  std::vector<std::string> names;
  std::int64_t expected = 1;
  for (const Json& stage : stages.asArray()) {
    CPPUNIT_ASSERT_EQUAL_MESSAGE(stages.dump(), expected++, stage["order"].asInt());
    names.push_back(stage["name"].asString());
  }
  return names;
}

// The id of the stage named `name` in `pipeline` (a pipeline object).
inline std::string stageId(const Json& pipeline, const std::string& name) {
  for (const Json& stage : pipeline["stages"].asArray()) {
    if (stage["name"].asString() == name) return stage["id"].asString();
  }
  CPPUNIT_FAIL("no stage " + name + " in " + pipeline.dump());
  return {};
}

// Adds `user` to `owner`'s company as `role` and returns the user's token
// for that company.
inline std::string joinAs(HttpClient& client, const Account& owner, const Account& user,
                          const std::string& role) {
  E2E_ASSERT_DATA(
      201, client.post("/v1/company/members", Json::object({{"email", user.email}, {"role", role}}),
                       bearer(owner.token)));
  return switchContext(client, user.token, owner.companyId);
}

// The ids of the tenant's default pipelines, read from the database.
inline std::vector<std::string> defaultIds(const std::string& tenant) {
  std::vector<std::string> ids;
  for (const auto& row : queryDatabase(pipelinesServer().databaseUrl(),
                                       "SELECT id FROM pipelines WHERE company_id = " +
                                           sqlQuote(tenant) + " AND is_default ORDER BY id")) {
    ids.push_back(row.at(0));
  }
  return ids;
}

using Names = std::vector<std::string>;

}  // namespace rapport::e2e::pipelines
