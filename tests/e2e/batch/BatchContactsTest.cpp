// POST /v1/crm/contacts/batch: every outcome in one call, each item as if it
// were a single request (its record, its one event, its error), and the
// calls refused whole (nothing run), access and the rate limit.
#include <cppunit/extensions/HelperMacros.h>

#include <algorithm>
#include <thread>

#include "e2e/batch/BatchSuite.h"

using namespace rapport::e2e;
using namespace rapport::e2e::batch;

namespace {

const std::string kContacts = "/v1/crm/contacts";

// `tenant`'s events of `type`, oldest first, each as "<record id> <request
// id>".
std::vector<std::string> eventsOf(const std::string& tenant, const std::string& type) {
  std::vector<std::string> out;
  for (const auto& row :
       queryDatabase(batchServer().databaseUrl(),
                     "SELECT data, request_id FROM events WHERE company_id = " + sqlQuote(tenant) +
                         " AND type = " + sqlQuote(type) + " ORDER BY sequence")) {
    out.push_back(Json::parse(row.at(0))["id"].asString() + " " + row.at(1));
  }
  return out;
}

// A body of `count` valid creates.
Json::Array creates(std::size_t count) {
  Json::Array items;
  for (std::size_t i = 0; i < count; ++i) {
    items.push_back(createItem(Json::object({{"name", "Person " + std::to_string(i)}})));
  }
  return items;
}

}  // namespace

class BatchContactsTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(BatchContactsTest);
  CPPUNIT_TEST(testEveryOutcomeInOneCall);
  CPPUNIT_TEST(testHundredItemsRunAndMoreAreRefusedWhole);
  CPPUNIT_TEST(testMalformedItemsAreRefusedWhole);
  CPPUNIT_TEST(testMalformedBodies);
  CPPUNIT_TEST(testAccessIsThePostRoutes);
  CPPUNIT_TEST(testCountsAsOneRequest);
  CPPUNIT_TEST(testIdempotencyKeyCoversTheWholeCall);
  CPPUNIT_TEST(testRacingUpsertsOfOneNewEmailMakeOneContact);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEveryOutcomeInOneCall() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-mixed");
    const Json target = createContact(client, owner.token, Json::object({{"name", "Target"}}));
    const Json known = createContact(
        client, owner.token, Json::object({{"name", "Known"}, {"email", "known@example.com"}}));
    const std::string targetId = target["id"].asString();
    const std::string knownId = known["id"].asString();

    const HttpResult result = postBatch(
        client, owner.token, kContacts,
        {createItem(Json::object({{"name", "Created"}, {"email", "created@example.com"}})),
         updateItem(targetId, Json::object({{"job_title", "CTO"}})),
         upsertItem(Json::object({{"name", "Fresh"}, {"email", "fresh@example.com"}})),
         // The e-mail as the contacts store compares it: any case.
         upsertItem(Json::object({{"name", "Known Again"}, {"email", "KNOWN@Example.com"}})),
         createItem(Json::object({{"email", "not-an-email"}})),
         updateItem("cont_doesnotexist", Json::object({{"name", "Nobody"}})),
         // Item 0 made this e-mail a moment ago.
         createItem(Json::object({{"name", "Twin"}, {"email", "created@example.com"}})),
         upsertItem(Json::object({{"name", "No e-mail"}}))});
    const Json::Array results = BATCH_ASSERT_RESULTS(result, 8);
    CPPUNIT_ASSERT(statusesOf(results) ==
                   std::vector<std::int64_t>({201, 200, 201, 200, 422, 404, 409, 422}));

    // Successes carry the record as the single request would answer it.
    const std::string createdId = results[0]["data"]["id"].asString();
    const std::string freshId = results[2]["data"]["id"].asString();
    CPPUNIT_ASSERT_EQUAL(std::string("created@example.com"),
                         results[0]["data"]["email"].asString());
    CPPUNIT_ASSERT_EQUAL(targetId, results[1]["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("CTO"), results[1]["data"]["job_title"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Fresh"), results[2]["data"]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(knownId, results[3]["data"]["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Known Again"), results[3]["data"]["name"].asString());
    for (std::size_t i : {0, 1, 2, 3}) {
      CPPUNIT_ASSERT_MESSAGE(results[i].dump(), results[i].find("message") == nullptr);
      CPPUNIT_ASSERT_MESSAGE(results[i].dump(), results[i].find("errors") == nullptr);
    }

    // Failures carry the message (and field errors) the single request would.
    CPPUNIT_ASSERT_EQUAL(std::string("The email must be a valid email address."),
                         results[4]["message"].asString());
    CPPUNIT_ASSERT(results[4]["errors"] ==
                   Json::object({{"email", Json::Array{"The email must be a valid email address."}},
                                 {"name", Json::Array{"The name field is required."}}}));
    CPPUNIT_ASSERT(results[5] ==
                   Json::object({{"status", 404}, {"message", "Contact not found."}}));
    CPPUNIT_ASSERT(
        results[6] ==
        Json::object({{"status", 409}, {"message", "A contact with this email already exists."}}));
    CPPUNIT_ASSERT(
        results[7] ==
        Json::object(
            {{"status", 422},
             {"message", "The email field is required."},
             {"errors", Json::object({{"email", Json::Array{"The email field is required."}}})}}));
    for (std::size_t i : {4, 5, 6, 7}) {
      CPPUNIT_ASSERT_MESSAGE(results[i].dump(), results[i].find("data") == nullptr);
    }

    // The records are as the single requests would have left them.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{4}, totalOf(client, owner.token, kContacts));
    const Json read =
        E2E_ASSERT_DATA(200, client.get(kContacts + "/" + knownId, bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Known Again"), read["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("known@example.com"), read["email"].asString());
    E2E_ASSERT_DATA(200, client.get(kContacts + "/" + createdId, bearer(owner.token)));
    E2E_ASSERT_DATA(200, client.get(kContacts + "/" + freshId, bearer(owner.token)));

    // One event per successful item, none for the failed ones, each named
    // with the batch's request id.
    const std::string requestId = result.header("X-Request-Id");
    const auto created = eventsOf(owner.companyId, "crm.contact.created");
    const auto updated = eventsOf(owner.companyId, "crm.contact.updated");
    CPPUNIT_ASSERT_EQUAL(std::size_t(4), created.size());  // target, known, then the batch's two
    CPPUNIT_ASSERT_EQUAL(createdId + " " + requestId, created[2]);
    CPPUNIT_ASSERT_EQUAL(freshId + " " + requestId, created[3]);
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), updated.size());
    CPPUNIT_ASSERT_EQUAL(targetId + " " + requestId, updated[0]);
    CPPUNIT_ASSERT_EQUAL(knownId + " " + requestId, updated[1]);
  }

  void testHundredItemsRunAndMoreAreRefusedWhole() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-size");
    const Json refused =
        E2E_ASSERT_ERROR(422, postBatch(client, owner.token, kContacts, creates(101)));
    CPPUNIT_ASSERT(
        refused ==
        Json::object(
            {{"message", "The items may not have more than 100 items."},
             {"errors",
              Json::object(
                  {{"items", Json::Array{"The items may not have more than 100 items."}}})}}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, totalOf(client, owner.token, kContacts));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0),
                         eventCount(batchServer(), owner.companyId, "crm.contact.created"));

    const Json::Array results =
        BATCH_ASSERT_RESULTS(postBatch(client, owner.token, kContacts, creates(100)), 100);
    for (const Json& item : results)
      CPPUNIT_ASSERT_EQUAL(std::int64_t{201}, item["status"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("Person 99"), results[99]["data"]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{100}, totalOf(client, owner.token, kContacts));
    CPPUNIT_ASSERT_EQUAL(std::size_t(100),
                         eventCount(batchServer(), owner.companyId, "crm.contact.created"));
  }

  void testMalformedItemsAreRefusedWhole() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-items");
    Json::Array items = creates(1);
    items.push_back(Json::object({{"action", "replace"}, {"data", Json::object({{"name", "A"}})}}));
    items.push_back(Json("not an item"));
    items.push_back(Json::object({{"action", "update"}, {"data", Json::array()}}));
    items.push_back(
        Json::object({{"action", "create"}, {"id", "cont_x"}, {"data", Json::object()}}));
    items.push_back(Json::object({{"data", Json::object()}}));
    items.push_back(Json::object({{"action", "update"}, {"id", ""}}));
    const Json refused = E2E_ASSERT_ERROR(422, postBatch(client, owner.token, kContacts, items));
    CPPUNIT_ASSERT_EQUAL(std::string("The selected items.1.action is invalid."),
                         refused["message"].asString());
    const Json expected = Json::object({
        {"items.1.action", Json::Array{"The selected items.1.action is invalid."}},
        {"items.2", Json::Array{"The items.2 must be an object."}},
        {"items.3.data", Json::Array{"The items.3.data must be an object."}},
        {"items.3.id", Json::Array{"The items.3.id field is required."}},
        {"items.4.id", Json::Array{"The items.4.id is only allowed on an update."}},
        {"items.5.action", Json::Array{"The items.5.action field is required."}},
        {"items.6.data", Json::Array{"The items.6.data field is required."}},
        {"items.6.id", Json::Array{"The items.6.id field is required."}},
    });
    CPPUNIT_ASSERT_MESSAGE(refused.dump(), refused["errors"] == expected);
    // Item 0 was valid, and still did not run.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, totalOf(client, owner.token, kContacts));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0),
                         eventCount(batchServer(), owner.companyId, "crm.contact.created"));
  }

  void testMalformedBodies() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-bodies");
    const auto refusal = [&](const Json& body) {
      return E2E_ASSERT_ERROR(422, client.post(kContacts + "/batch", body, bearer(owner.token)));
    };
    CPPUNIT_ASSERT(refusal(Json::object())["errors"] ==
                   Json::object({{"items", Json::Array{"The items field is required."}}}));
    CPPUNIT_ASSERT(refusal(Json::object({{"items", Json::object()}}))["errors"] ==
                   Json::object({{"items", Json::Array{"The items must be an array."}}}));
    CPPUNIT_ASSERT(refusal(Json::object({{"items", Json::array()}}))["errors"] ==
                   Json::object({{"items", Json::Array{"The items must have at least 1 item."}}}));
    // Not JSON, or not an object: the API's 400, as on every route.
    const Json notJson = E2E_ASSERT_ERROR(
        400, client.send("POST", kContacts + "/batch", std::string("[1]"),
                         bearer(owner.token, {{"Content-Type", "application/json"}})));
    CPPUNIT_ASSERT_EQUAL(std::string("Malformed request: the body must be a JSON object."),
                         notJson["message"].asString());
  }

  void testAccessIsThePostRoutes() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-access");
    const Json items = Json::object({{"items", creates(1)}});
    const HttpResult anonymous = client.post(kContacts + "/batch", items);
    E2E_ASSERT_ERROR(401, anonymous);
    CPPUNIT_ASSERT_EQUAL(std::string("Bearer"), anonymous.header("WWW-Authenticate"));
    // Any member may create contacts, so any member may batch them.
    const Account member = addMember(client, owner, "member", "batch-member");
    const Json::Array results =
        BATCH_ASSERT_RESULTS(client.post(kContacts + "/batch", items, bearer(member.token)), 1);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{201}, results[0]["status"].asInt());
    // Another company's record is not found, as a single update would say.
    const Account other = registerUser(client, "batch-other");
    const Json::Array foreign = BATCH_ASSERT_RESULTS(
        postBatch(
            client, other.token, kContacts,
            {updateItem(results[0]["data"]["id"].asString(), Json::object({{"name", "Stolen"}}))}),
        1);
    CPPUNIT_ASSERT(foreign[0] ==
                   Json::object({{"status", 404}, {"message", "Contact not found."}}));
    // GET of the path is not a route of its own: it reads a contact "batch".
    E2E_ASSERT_ERROR(404, client.get(kContacts + "/batch", bearer(owner.token)));
  }

  // Clients syncing the same new person at once: every upsert succeeds,
  // one creates the contact and the others update it (a create that lost
  // the race to the unique e-mail is matched again and updated).
  void testRacingUpsertsOfOneNewEmailMakeOneContact() {
    HttpClient setup(batchServer().port());
    const Account owner = registerUser(setup, "batch-race");
    constexpr int kClients = 6;
    for (int round = 0; round < 3; ++round) {
      const std::string email = "racer" + std::to_string(round) + "@example.com";
      std::vector<std::int64_t> statuses(kClients, 0);
      std::vector<std::thread> clients;
      for (int i = 0; i < kClients; ++i) {
        clients.emplace_back([&, i] {
          HttpClient client(batchServer().port());
          const HttpResult result = postBatch(
              client, owner.token, kContacts,
              {upsertItem(
                  Json::object({{"email", email}, {"name", "Racer " + std::to_string(i)}}))});
          if (result.status == 200)
            statuses[i] = result.json()["data"].asArray().at(0)["status"].asInt();
        });
      }
      for (std::thread& client : clients) client.join();
      CPPUNIT_ASSERT_EQUAL(std::int64_t(1), std::count(statuses.begin(), statuses.end(), 201));
      CPPUNIT_ASSERT_EQUAL(std::int64_t(kClients - 1),
                           std::count(statuses.begin(), statuses.end(), 200));
      CPPUNIT_ASSERT_EQUAL(std::int64_t(round + 1), totalOf(setup, owner.token, kContacts));
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(3),
                         eventCount(batchServer(), owner.companyId, "crm.contact.created"));
  }

  void testCountsAsOneRequest() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-rate");
    const HttpResult first = postBatch(client, owner.token, kContacts, creates(5));
    BATCH_ASSERT_RESULTS(first, 5);
    const HttpResult second = postBatch(client, owner.token, kContacts, creates(5));
    BATCH_ASSERT_RESULTS(second, 5);
    const std::int64_t before = headerInt(first, "X-RateLimit-Remaining");
    const std::int64_t after = headerInt(second, "X-RateLimit-Remaining");
    // Both calls fall in one window unless the minute turned between them.
    if (headerInt(first, "X-RateLimit-Reset") == headerInt(second, "X-RateLimit-Reset")) {
      CPPUNIT_ASSERT_EQUAL(before - 1, after);
    }
  }

  // The key belongs to the call: a retry replays its answer and runs no item again.
  void testIdempotencyKeyCoversTheWholeCall() {
    HttpClient client(batchServer().port());
    const Account owner = registerUser(client, "batch-key");
    const Json body = Json::object({{"items", creates(3)}});
    const rapport::Headers keyed = bearer(owner.token, {{"Idempotency-Key", "batch-key-1"}});
    const HttpResult first = client.post(kContacts + "/batch", body, keyed);
    BATCH_ASSERT_RESULTS(first, 3);
    const HttpResult replay = client.post(kContacts + "/batch", body, keyed);
    BATCH_ASSERT_RESULTS(replay, 3);
    CPPUNIT_ASSERT_EQUAL(std::string("true"), replay.header("Idempotent-Replayed"));
    CPPUNIT_ASSERT_EQUAL(first.body, replay.body);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, totalOf(client, owner.token, kContacts));
    CPPUNIT_ASSERT_EQUAL(std::size_t(3),
                         eventCount(batchServer(), owner.companyId, "crm.contact.created"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(BatchContactsTest);
