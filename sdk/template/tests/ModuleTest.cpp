// The starter module through the SDK's in-process harness: the real host with
// rapport_starter.so loaded, a fresh database per test, and clients that call
// routes as a user of a company. Add a test per rule your module keeps.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>
#include <string>
#include <vector>

#include "rapport/testing.h"

using rapport::Json;
using rapport::testing::Client;
using rapport::testing::Harness;
using rapport::testing::Reply;

class StarterTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(StarterTest);
  CPPUNIT_TEST(testCreateReadListDelete);
  CPPUNIT_TEST(testInvalidAndForeignRecords);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    rapport::testing::HarnessOptions options;
    options.modules = {"starter"};  // and the modules it depends on
    harness_ = std::make_unique<Harness>(options);
  }
  void tearDown() override { harness_.reset(); }

  void testCreateReadListDelete() {
    Client alice = harness_->signUp();
    const Reply made = alice.post("/v1/starter/items", Json::object({{"name", "First item"}}));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Item created."), made.message());
    const std::string path = "/v1/starter/items/" + made.data()["id"].asString();

    CPPUNIT_ASSERT(alice.get(path).data() == made.data());
    const Reply found = alice.get("/v1/starter/items?search=first");
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, found.meta()["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(200, alice.del(path).status);
    CPPUNIT_ASSERT_EQUAL(404, alice.get(path).status);

    std::vector<std::string> types;
    for (const Json& event : harness_->events(alice)) types.push_back(event["type"].asString());
    CPPUNIT_ASSERT(
        (types == std::vector<std::string>{"starter.item.created", "starter.item.deleted"}));
  }

  void testInvalidAndForeignRecords() {
    Client alice = harness_->signUp();
    const Reply refused = alice.post("/v1/starter/items", Json::object({{"notes", "no name"}}));
    CPPUNIT_ASSERT_EQUAL(422, refused.status);
    CPPUNIT_ASSERT(refused.fieldErrors("name") ==
                   std::vector<std::string>{"The name field is required."});

    const Reply made = alice.post("/v1/starter/items", Json::object({{"name", "Mine"}}));
    Client bob = harness_->signUp();  // another company
    CPPUNIT_ASSERT_EQUAL(404, bob.get("/v1/starter/items/" + made.data()["id"].asString()).status);
  }

 private:
  std::unique_ptr<Harness> harness_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(StarterTest);
