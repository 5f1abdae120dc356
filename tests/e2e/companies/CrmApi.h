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

}  // namespace rapport::e2e::crm
