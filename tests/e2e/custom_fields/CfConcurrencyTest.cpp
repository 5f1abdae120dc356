// Custom fields under concurrent writes (decisions §14, issue 23 "Tests"):
// two creates racing for one unique value get one 201 and one 409, round
// after round; a field deleted while another connection keeps writing it
// leaves only 201s and 422s behind, no record showing its key, and a new
// field of the same key empty on every old record.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <set>
#include <thread>

#include "e2e/companies/Together.h"
#include "e2e/custom_fields/CustomFieldsSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::custom_fields;

class CfConcurrencyTest : public CustomFieldsFixture {
  CPPUNIT_TEST_SUITE(CfConcurrencyTest);
  CPPUNIT_TEST(testUniqueRaceHasOneWinner);
  CPPUNIT_TEST(testUniqueRaceOfPatches);
  CPPUNIT_TEST(testFieldDeletedWhileRecordsAreWritten);
  CPPUNIT_TEST_SUITE_END();

 public:
  // Two creates with the same unique value, released together, 8 rounds (a
  // new value each): exactly one 201 and one 409 each round, and one record
  // holds the value.
  void testUniqueRaceHasOneWinner() {
    define(fieldBody("external_id", "text", Json::object({{"unique", true}})));
    const int port = customFieldsServer().port();
    for (int round = 0; round < 8; ++round) {
      const std::string value = "R-" + std::to_string(round);
      const auto results = sendTogether(port, 2, [&](HttpClient& client, std::size_t i) {
        return client.post(
            kContacts,
            contactWith("Racer " + std::to_string(i), Json::object({{"external_id", value}})),
            bearer(token_));
      });
      std::multiset<int> statuses;
      for (const HttpResult& result : results) statuses.insert(result.status);
      CPPUNIT_ASSERT_MESSAGE("round " + std::to_string(round) + ": " + statusSummary(results) +
                                 "\n" + describe(results[0]) + "\n" + describe(results[1]),
                             statuses == (std::multiset<int>{201, 409}));
      for (const HttpResult& result : results) {
        if (result.status == 409) {
          CRM_ASSERT_ERROR_MESSAGE(409, "A contact with this external_id already exists.", result);
        }
      }
      const Ids holders = matching("{\"custom_fields.external_id\":\"" + value + "\"}");
      CPPUNIT_ASSERT_EQUAL_MESSAGE(value, std::size_t(1), holders.size());
    }
  }

  // Two PATCHes of two records to the same unique value: one 200, one 409.
  void testUniqueRaceOfPatches() {
    define(fieldBody("seat", "number", Json::object({{"unique", true}})));
    const int port = customFieldsServer().port();
    for (int round = 0; round < 4; ++round) {
      const std::string a = create(Json::object({{"name", "A"}}))["id"].asString();
      const std::string b = create(Json::object({{"name", "B"}}))["id"].asString();
      const std::vector<std::string> ids = {a, b};
      const auto results = sendTogether(port, 2, [&](HttpClient& client, std::size_t i) {
        return client.patch(
            kContacts + "/" + ids[i],
            Json::object({{"custom_fields", Json::object({{"seat", 100 + round}})}}),
            bearer(token_));
      });
      std::multiset<int> statuses;
      for (const HttpResult& result : results) statuses.insert(result.status);
      CPPUNIT_ASSERT_MESSAGE("round " + std::to_string(round) + ": " + statusSummary(results) +
                                 "\n" + describe(results[0]) + "\n" + describe(results[1]),
                             statuses == (std::multiset<int>{200, 409}));
      CPPUNIT_ASSERT_EQUAL(
          std::size_t(1),
          matching("{\"custom_fields.seat\":" + std::to_string(100 + round) + "}").size());
    }
  }

  // One connection creates contacts with the field while another deletes the
  // field: each create answers 201 (before: the value shown; after: no key)
  // or 422 on custom_fields.channel (the key is unknown), and every create sent
  // after the delete answered is a 422; afterwards no record
  // shows the key, and a new field of the same key is null everywhere.
  void testFieldDeletedWhileRecordsAreWritten() {
    define(fieldBody("channel", "text"));
    define(fieldBody("kept", "number"));
    std::atomic<int> created{0};
    std::atomic<bool> deleted{false};
    std::vector<HttpResult> answers;
    std::vector<bool> sentAfterDelete;
    std::string writerFailure;
    std::thread writer([&] {
      try {
        HttpClient client(customFieldsServer().port());
        int afterDelete = 0;
        // Until 10 creates have been answered after the delete (at most 400).
        for (int i = 0; i < 400 && afterDelete < 10; ++i) {
          const bool deletedBefore = deleted.load();
          sentAfterDelete.push_back(deletedBefore);
          answers.push_back(client.post(
              kContacts,
              contactWith("Writer " + std::to_string(i),
                          Json::object({{"channel", "c" + std::to_string(i)}, {"kept", i}})),
              bearer(token_)));
          if (answers.back().status == 201) ++created;
          if (deletedBefore) ++afterDelete;
        }
      } catch (const std::exception& e) {
        writerFailure = e.what();
      }
    });
    // The delete goes once the writer is under way (bounded wait, no sleep
    // for luck).
    const bool started = waitUntil([&] { return created.load() >= 5 || !writerFailure.empty(); },
                                   std::chrono::seconds(30));
    const HttpResult removed = client_->del(fieldsPath(kContacts, "channel"), bearer(token_));
    deleted = true;
    writer.join();
    CPPUNIT_ASSERT_MESSAGE(writerFailure, writerFailure.empty());
    CPPUNIT_ASSERT_MESSAGE("the writer never got going", started);
    E2E_ASSERT_DATA(200, removed);

    int accepted = 0;
    for (std::size_t i = 0; i < answers.size(); ++i) {
      const HttpResult& answer = answers[i];
      if (sentAfterDelete[i]) CF_ASSERT_CUSTOM_ERROR(answer, "channel");
      if (answer.status == 201) {
        ++accepted;
        const Json custom = answer.json()["data"]["custom_fields"];
        // Written before the delete (the value and kept) or after (kept only).
        CPPUNIT_ASSERT_MESSAGE(describe(answer), custom["kept"].isInt());
        CPPUNIT_ASSERT_MESSAGE(
            describe(answer),
            custom.size() == 1 || (custom.size() == 2 && custom["channel"].isString()));
      } else {
        CF_ASSERT_CUSTOM_ERROR(answer, "channel");
      }
    }
    CPPUNIT_ASSERT(accepted >= 5);

    // Afterwards no record shows the key, in GET or in the list.
    const std::vector<Json> records = allRecords(*client_, token_, kContacts);
    CPPUNIT_ASSERT_EQUAL(static_cast<std::size_t>(accepted), records.size());
    for (const Json& record : records) {
      CPPUNIT_ASSERT_MESSAGE(record.dump(), !record["custom_fields"].contains("channel"));
      CPPUNIT_ASSERT_MESSAGE(record.dump(), record["custom_fields"]["kept"].isInt());
    }
    const Json one = read(records.front()["id"].asString());
    CF_ASSERT_CUSTOM_FIELDS(
        "{\"kept\":" + std::to_string(one["custom_fields"]["kept"].asInt()) + "}", one);
    CF_ASSERT_ERROR_KEY(
        list(filterParam(Json::parse(R"({"custom_fields.channel":{"null":false}})"))),
        "filter.custom_fields.channel");

    // A new field of the same key starts empty on every old record.
    define(fieldBody("channel", "text"));
    for (const Json& record : allRecords(*client_, token_, kContacts)) {
      CPPUNIT_ASSERT_MESSAGE(record.dump(), record["custom_fields"].contains("channel") &&
                                                record["custom_fields"]["channel"].isNull());
    }
    CPPUNIT_ASSERT(matching(R"({"custom_fields.channel":{"null":false}})").empty());
    CPPUNIT_ASSERT_EQUAL(static_cast<std::size_t>(accepted),
                         matching(R"({"custom_fields.channel":{"null":true}})").size());
    CPPUNIT_ASSERT(matching(R"({"custom_fields.channel":{"starts_with":"c"}})").empty());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CfConcurrencyTest);
