// Helpers of the CRM suites (e2e.companies and e2e.contacts), on top of
// e2e/common/Api.h: a server with the CRM modules, creating records, reading
// the event log.
#pragma once

#include <string>
#include <vector>

#include "e2e/common/Api.h"

namespace rapport::e2e::crm {

// Settings of a server that loads `modules` (comma-separated) and nothing else.
inline ServerProcess::Settings crmSettings(const std::string& modules = "companies,contacts") {
  return generousSettings({{"modules.enabled", modules}});
}

// POST `path` with `body` as `token`, asserting 201; returns data.
inline Json create(HttpClient& client, const std::string& token, const std::string& path,
                   const Json& body) {
  return E2E_ASSERT_DATA(201, client.post(path, body, bearer(token)));
}

inline Json createCrmCompany(HttpClient& client, const std::string& token, Json body) {
  return create(client, token, "/v1/crm/companies", body);
}

inline Json createContact(HttpClient& client, const std::string& token, Json body) {
  return create(client, token, "/v1/crm/contacts", body);
}

// GET `path` as `token`, asserting 200; returns the whole body (data and meta).
inline Json getBody(HttpClient& client, const std::string& token, const std::string& path,
                    Headers headers = {}) {
  const HttpResult result = client.get(path, bearer(token, std::move(headers)));
  E2E_ASSERT_DATA(200, result);
  return result.json();
}

// The data of the `type` events of `tenant` about record `id` (data.id),
// oldest first, read from the server's event log.
inline std::vector<Json> eventsAbout(const ServerProcess& server, const std::string& tenant,
                                     const std::string& type, const std::string& id) {
  std::vector<Json> out;
  numberEvents(server.databaseUrl());
  for (const auto& row : queryDatabase(
           server.databaseUrl(), "SELECT data FROM events WHERE company_id = " + sqlQuote(tenant) +
                                     " AND type = " + sqlQuote(type) + " ORDER BY sequence")) {
    Json data = Json::parse(row.at(0));
    if (data["id"] == Json(id)) out.push_back(std::move(data));
  }
  return out;
}

// The ids of a list answer's data, in order.
inline std::vector<std::string> idsOf(const Json& body) {
  return pluck(body["data"], "id");
}

// A 422 whose errors name `field` with exactly `message` (when given).
inline Json assertFieldError(const HttpResult& result, const std::string& field,
                             const std::string& message, const CppUnit::SourceLine& line) {
  const Json body = assertError(422, result, line);
  const Json* messages = body["errors"].find(field);
  if (messages == nullptr) {
    CppUnit::Asserter::fail(CppUnit::Message("errors do not name " + field, describe(result)),
                            line);
  }
  if (!message.empty() && !(*messages == Json(Json::Array{Json(message)}))) {
    CppUnit::Asserter::fail(
        CppUnit::Message("errors." + field + " is not [\"" + message + "\"]", describe(result)),
        line);
  }
  return body;
}

// An error of `status` whose message is exactly `message`.
inline void assertErrorMessage(int status, const std::string& message, const HttpResult& result,
                               const CppUnit::SourceLine& line) {
  const Json body = assertError(status, result, line);
  if (body["message"].asString() != message) {
    CppUnit::Asserter::fail(
        CppUnit::Message("message is not \"" + message + "\"", describe(result)), line);
  }
}

#define CRM_ASSERT_FIELD_ERROR(result, field, message) \
  ::rapport::e2e::crm::assertFieldError((result), (field), (message), CPPUNIT_SOURCELINE())
#define CRM_ASSERT_ERROR_MESSAGE(status, message, result) \
  ::rapport::e2e::crm::assertErrorMessage((status), (message), (result), CPPUNIT_SOURCELINE())

// One of each CRM record of a company, made through the API with `token`: a
// pipeline of three stages, CRM companies, contacts, deals and activities.
// The *Gone ones are there for a table's DELETE rows (e2e.roles,
// e2e.api_keys).
struct CrmRecords {
  std::string pipeline;
  std::vector<std::string> stages;  // in order
  std::string company, companyGone;
  std::string contact, contactGone;
  std::string deal, dealGone;
  std::string activity, activityGone;
};

inline CrmRecords createCrmRecords(HttpClient& client, const std::string& token) {
  CrmRecords r;
  const Json pipeline = create(
      client, token, "/v1/crm/pipelines",
      Json::object(
          {{"name", "Sales"},
           {"stages", Json::Array{Json::object({{"name", "Lead"}, {"probability", 10}}),
                                  Json::object({{"name", "Offer"}, {"probability", 50}}),
                                  Json::object({{"name", "Close"}, {"probability", 90}})}}}));
  r.pipeline = pipeline["id"].asString();
  r.stages = pluck(pipeline["stages"], "id");
  r.company = createCrmCompany(client, token, Json::object({{"name", "Acme"}}))["id"].asString();
  r.companyGone =
      createCrmCompany(client, token, Json::object({{"name", "Gone Inc"}}))["id"].asString();
  r.contact =
      createContact(client, token, Json::object({{"name", "Ada"}, {"company_id", r.company}}))["id"]
          .asString();
  r.contactGone = createContact(client, token, Json::object({{"name", "Gone"}}))["id"].asString();
  const auto deal = [&](const std::string& title) {
    return create(client, token, "/v1/crm/deals",
                  Json::object({{"title", title},
                                {"pipeline_id", r.pipeline},
                                {"stage_id", r.stages.at(0)},
                                {"contact_id", r.contact},
                                {"company_id", r.company},
                                {"value", 100000}}))["id"]
        .asString();
  };
  r.deal = deal("Big deal");
  r.dealGone = deal("Gone deal");
  const auto activity = [&](const std::string& title) {
    return create(client, token, "/v1/crm/activities",
                  Json::object(
                      {{"type", "call"},
                       {"title", title},
                       {"related_to", Json::object({{"type", "deal"}, {"id", r.deal}})}}))["id"]
        .asString();
  };
  r.activity = activity("Call Ada");
  r.activityGone = activity("Gone call");
  return r;
}

}  // namespace rapport::e2e::crm
