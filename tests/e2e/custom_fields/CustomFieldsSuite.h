// The server and helpers shared by the e2e.custom_fields suites (decisions
// §14, sdk/include/rapport/custom_fields.h; issue 23): every CRM module
// enabled on one server per engine, definitions under
// /v1/crm/<resource>/fields, values under each record's `custom_fields`, and
// the query helpers of e2e.query (filters, cursor walks, 422 keys).
//
// Each test registers its own accounts, so the tests share the server and
// nothing else: a definition of one test never shows in another's records.
#pragma once

#include <cppunit/TestFixture.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "e2e/query/QuerySuite.h"

namespace rapport::e2e::custom_fields {

using namespace rapport::e2e::crm;
using rapport::e2e::query::filterParam;
using rapport::e2e::query::Ids;
using rapport::e2e::query::urlEncode;

inline ServerProcess& customFieldsServer() {
  static ServerProcess server(crmSettings("contacts,companies,pipelines,deals,activities"));
  return server;
}

inline const std::string kContacts = "/v1/crm/contacts";
inline const std::string kCompanies = "/v1/crm/companies";
inline const std::string kDeals = "/v1/crm/deals";
inline const std::string kActivities = "/v1/crm/activities";

// <records>/fields, or <records>/fields/<key>.
inline std::string fieldsPath(const std::string& records, const std::string& key = "") {
  return records + "/fields" + (key.empty() ? "" : "/" + key);
}

// A definition's body: {key, label, type} plus `extra`'s members.
inline Json fieldBody(const std::string& key, const std::string& type,
                      Json extra = Json::object()) {
  Json body = Json::object({{"key", key}, {"label", "Label of " + key}, {"type", type}});
  for (const auto& [name, value] : extra.asObject()) body.set(name, value);
  return body;
}

// [{value, label}] for `values` (label: the value upper-cased).
inline Json optionsOf(const std::vector<std::string>& values) {
  Json options = Json::array();
  for (const std::string& value : values) {
    std::string label = value;
    for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    options.push(Json::object({{"value", value}, {"label", label}}));
  }
  return options;
}

// POST <records>/fields with `body` as `token`, asserting 201 "Custom field
// created."; returns the definition.
inline Json defineField(HttpClient& client, const std::string& token, const std::string& records,
                        const Json& body) {
  const HttpResult result = client.post(fieldsPath(records), body, bearer(token));
  const Json data = E2E_ASSERT_DATA(201, result);
  CPPUNIT_ASSERT_EQUAL_MESSAGE(describe(result), std::string("Custom field created."),
                               result.json()["message"].asString());
  return data;
}

// GET <records>/fields as `token`, asserting 200 and a JSON object whose
// data is an array (the contract's {"data": [...]}; a message beside it is
// the house envelope); returns data.
inline Json listFields(HttpClient& client, const std::string& token, const std::string& records) {
  const HttpResult result = client.get(fieldsPath(records), bearer(token));
  E2E_ASSERT_STATUS(200, result);
  const Json body = E2E_ASSERT_JSON(result);
  CPPUNIT_ASSERT_MESSAGE(describe(result), body["data"].isArray() && !body.contains("meta"));
  return body["data"];
}

// `body` with "custom_fields": `values`.
inline Json withCustom(Json body, Json values) {
  body.set("custom_fields", std::move(values));
  return body;
}

// A contact named `name` with custom_fields `values`: the body of a POST.
inline Json contactWith(const std::string& name, Json values) {
  return withCustom(Json::object({{"name", name}}), std::move(values));
}

// GET <records>/<id> as `token`, asserting 200; returns data.
inline Json readRecord(HttpClient& client, const std::string& token, const std::string& records,
                       const std::string& id) {
  return E2E_ASSERT_DATA(200, client.get(records + "/" + id, bearer(token)));
}

// Every record of the list at `records` (pages of 100), oldest first.
inline std::vector<Json> allRecords(HttpClient& client, const std::string& token,
                                    const std::string& records) {
  std::vector<Json> out;
  for (int page = 1; page < 1000; ++page) {
    const Json body = getBody(
        client, token, records + "?sort=created_at&per_page=100&page=" + std::to_string(page));
    for (const Json& record : body["data"].asArray()) out.push_back(record);
    if (body["data"].size() < 100) return out;
  }
  CPPUNIT_FAIL("the list of " + records + " never ended");
  return out;
}

// `value` written with every object's members sorted by name: the contract
// does not order the keys of custom_fields, so comparisons ignore it.
inline std::string canonical(const Json& value) {
  if (value.isArray()) {
    std::string out = "[";
    for (const Json& item : value.asArray()) out += (out.size() > 1 ? "," : "") + canonical(item);
    return out + "]";
  }
  if (!value.isObject()) return value.dump();
  std::vector<std::pair<std::string, std::string>> members;
  for (const auto& [name, member] : value.asObject()) members.emplace_back(name, canonical(member));
  std::sort(members.begin(), members.end());
  std::string out = "{";
  for (const auto& [name, text] : members) {
    out += (out.size() > 1 ? "," : "") + Json(name).dump() + ":" + text;
  }
  return out + "}";
}

// record["custom_fields"] holds exactly `expected` (JSON text), in any order.
inline void assertCustomFields(const std::string& expected, const Json& record,
                               const CppUnit::SourceLine& line) {
  CppUnit::assertEquals(canonical(Json::parse(expected)), canonical(record["custom_fields"]), line,
                        "custom_fields of " + record.dump());
}
#define CF_ASSERT_CUSTOM_FIELDS(expected, record) \
  ::rapport::e2e::custom_fields::assertCustomFields((expected), (record), CPPUNIT_SOURCELINE())

// Runs `check`; a CppUnit failure in it is rethrown with `request` ("POST
// /v1/crm/contacts {...}") added to its message, so a failure names the
// request as well as the answer.
inline void withRequest(const std::string& request, const std::function<void()>& check) {
  try {
    check();
  } catch (const CppUnit::Exception& e) {
    CppUnit::Message message = e.message();
    message.addDetail("request: " + request);
    throw CppUnit::Exception(message, e.sourceLine());
  }
}

// A 422 whose errors name "custom_fields.<key>".
#define CF_ASSERT_CUSTOM_ERROR(result, key) \
  CRM_ASSERT_FIELD_ERROR((result), std::string("custom_fields.") + (key), "")
// A 422 whose errors name exactly `key` / `prefix` or a key under it.
#define CF_ASSERT_ERROR_KEY(result, key) QUERY_ASSERT_ERROR_KEY((result), (key))
#define CF_ASSERT_ERROR_UNDER(result, prefix) QUERY_ASSERT_ERROR_UNDER((result), (prefix))

// The fixture of the e2e.custom_fields suites: a client of the suite's
// server and a new owner (its own company) for each test.
class CustomFieldsFixture : public CppUnit::TestFixture {
 public:
  void setUp() override {
    client_ = std::make_unique<HttpClient>(customFieldsServer().port());
    owner_ = registerUser(*client_, "cf");
    token_ = owner_.token;
  }
  void tearDown() override { client_.reset(); }

 protected:
  // defineField on `records` (contacts by default) as the test's owner.
  Json define(const Json& body, const std::string& records = kContacts) {
    return defineField(*client_, token_, records, body);
  }
  // The owner's definitions of <records>.
  Json fields(const std::string& records = kContacts) {
    return listFields(*client_, token_, records);
  }
  // POST <records> with `body` as the owner: the raw answer.
  HttpResult post(const Json& body, const std::string& records = kContacts) {
    return client_->post(records, body, bearer(token_));
  }
  // POST <records> asserting 201; returns data.
  Json create(const Json& body, const std::string& records = kContacts) {
    return E2E_ASSERT_DATA(201, post(body, records));
  }
  // PATCH <records>/<id> with `body` as the owner: the raw answer.
  HttpResult patch(const std::string& id, const Json& body,
                   const std::string& records = kContacts) {
    return client_->patch(records + "/" + id, body, bearer(token_));
  }
  // GET <records>/<id> as the owner, asserting 200; returns data.
  Json read(const std::string& id, const std::string& records = kContacts) {
    return readRecord(*client_, token_, records, id);
  }
  // The ids `filter` selects from <records>, oldest first.
  Ids matching(const std::string& filter, const std::string& records = kContacts) {
    return rapport::e2e::query::matching(*client_, token_, records, Json::parse(filter));
  }
  // GET <records>?<query> as the owner: the raw answer.
  HttpResult list(const std::string& query, const std::string& records = kContacts) {
    return client_->get(records + "?" + query, bearer(token_));
  }

  std::unique_ptr<HttpClient> client_;
  Account owner_;
  std::string token_;
};

}  // namespace rapport::e2e::custom_fields
