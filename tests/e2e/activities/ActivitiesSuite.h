// The server shared by the e2e.activities suites (every CRM module enabled)
// and the helpers they share: creating activities, deals (through a
// pipeline) and members, and reading the event log (CrmApi.h).
#pragma once

#include <string>
#include <vector>

#include "e2e/companies/CrmApi.h"

namespace rapport::e2e::crm {

inline ServerProcess& activitiesServer() {
  static ServerProcess server(crmSettings("contacts,companies,pipelines,deals,activities"));
  return server;
}

inline Json createActivity(HttpClient& client, const std::string& token, Json body) {
  return create(client, token, "/v1/crm/activities", body);
}

// A call titled `title`, with nothing else.
inline Json createCall(HttpClient& client, const std::string& token, const std::string& title) {
  return createActivity(client, token, Json::object({{"type", "call"}, {"title", title}}));
}

// {"type": type, "id": id}, as related_to is written.
inline Json related(const std::string& type, const Json& id) {
  return Json::object({{"type", type}, {"id", id}});
}

// A deal of `token`'s company in a new pipeline of one stage (POST
// /crm/pipelines, then POST /crm/deals); returns the deal.
inline Json createDeal(HttpClient& client, const std::string& token, const std::string& title) {
  const Json pipeline =
      create(client, token, "/v1/crm/pipelines",
             Json::object({{"name", "Sales " + title},
                           {"stages", Json::Array{Json::object({{"name", "Lead"}})}}}));
  return create(client, token, "/v1/crm/deals",
                Json::object({{"title", title},
                              {"pipeline_id", pipeline["id"]},
                              {"stage_id", pipeline["stages"].asArray().at(0)["id"]}}));
}

// A new user added to `owner`'s company with role `role`; returns it with a
// token for that company (the token of its own registration is replaced).
inline Account addMember(HttpClient& client, const Account& owner, const std::string& role,
                         const std::string& label) {
  Account member = registerUser(client, label);
  E2E_ASSERT_DATA(201, client.post("/v1/company/members",
                                   Json::object({{"email", member.email}, {"role", role}}),
                                   bearer(owner.token)));
  member.token = switchContext(client, member.token, owner.companyId);
  member.companyId = owner.companyId;
  return member;
}

// The GET answer of activity `id`, asserting 200.
inline Json readActivity(HttpClient& client, const std::string& token, const std::string& id) {
  return E2E_ASSERT_DATA(200, client.get("/v1/crm/activities/" + id, bearer(token)));
}

// Every event of `tenant` whose type starts with "crm.activity.", as
// "<type> <data.id>", oldest first.
inline std::vector<std::string> activityEvents(const ServerProcess& server,
                                               const std::string& tenant) {
  std::vector<std::string> out;
  numberEvents(server.databaseUrl());
  for (const auto& row :
       queryDatabase(server.databaseUrl(),
                     "SELECT type, data FROM events WHERE company_id = " + sqlQuote(tenant) +
                         " AND type LIKE 'crm.activity.%' ORDER BY sequence")) {
    out.push_back(row.at(0) + " " + Json::parse(row.at(1))["id"].asString());
  }
  return out;
}

}  // namespace rapport::e2e::crm
