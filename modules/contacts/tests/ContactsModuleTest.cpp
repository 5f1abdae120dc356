// module.contacts: the contacts module through the in-process harness, as a
// client sees it (docs/modules/contacts.md): its routes' main paths, tenancy,
// the owner rule, its events, and the company link racing the company's
// delete (with the companies module).
#include <cppunit/extensions/HelperMacros.h>

#include <latch>
#include <string>
#include <thread>

#include "rapport/testing.h"

namespace {

using rapport::Json;
using rapport::Role;
using rapport::testing::Client;
using rapport::testing::Harness;
using rapport::testing::Reply;

std::string eventTypes(const std::vector<Json>& events) {
  std::string out;
  for (const Json& event : events) out += (out.empty() ? "" : ",") + event["type"].asString();
  return out;
}

}  // namespace

class ContactsModuleTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ContactsModuleTest);
  CPPUNIT_TEST(createReadUpdateDelete);
  CPPUNIT_TEST(listSearchesAndPages);
  CPPUNIT_TEST(aFilteredListKeepsItsGenericPlan);
  CPPUNIT_TEST(anotherCompanysContactIsNotFound);
  CPPUNIT_TEST(ownerMustBeAMemberOfTheCompany);
  CPPUNIT_TEST(eachChangeIsAnEvent);
  CPPUNIT_TEST(companyLinkNeedsTheCompaniesModule);
  CPPUNIT_TEST(companyLinkRacesTheCompanysDelete);
  CPPUNIT_TEST_SUITE_END();

 public:
  void createReadUpdateDelete() {
    Harness harness({.modules = {"contacts"}});
    Client alice = harness.signUp();
    Reply made =
        alice.post("/v1/crm/contacts", Json::object({{"name", " Ada Lovelace "},
                                                     {"email", "Ada@Example.com"},
                                                     {"tags", Json::Array{"vip", "VIP", "lead"}}}));
    CPPUNIT_ASSERT_EQUAL(201, made.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Contact created."), made.message());
    CPPUNIT_ASSERT_EQUAL(std::string("Ada Lovelace"), made.data()["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), made.data()["tags"].size());
    CPPUNIT_ASSERT(made.data()["company_id"].isNull());
    const std::string path = "/v1/crm/contacts/" + made.data()["id"].asString();

    CPPUNIT_ASSERT(alice.get(path).data() == made.data());
    Reply updated = alice.patch(path, Json::object({{"job_title", "Analyst"}}));
    CPPUNIT_ASSERT_EQUAL(200, updated.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Analyst"), updated.data()["job_title"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Ada Lovelace"), updated.data()["name"].asString());
    Reply cleared = alice.patch(path, Json::object({{"name", ""}}));
    CPPUNIT_ASSERT_EQUAL(422, cleared.status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), cleared.fieldErrors("name").size());

    Reply deleted = alice.del(path);
    CPPUNIT_ASSERT_EQUAL(200, deleted.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Contact deleted."), deleted.message());
    Reply gone = alice.get(path);
    CPPUNIT_ASSERT_EQUAL(404, gone.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Contact not found."), gone.message());
  }

  void listSearchesAndPages() {
    Harness harness({.modules = {"contacts"}});
    Client alice = harness.signUp();
    for (const char* name : {"Ada", "Grace", "Alan"}) {
      CPPUNIT_ASSERT_EQUAL(201,
                           alice.post("/v1/crm/contacts", Json::object({{"name", name}})).status);
    }
    Reply page = alice.get("/v1/crm/contacts?per_page=2&sort=name");
    CPPUNIT_ASSERT_EQUAL(200, page.status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), page.data().size());
    CPPUNIT_ASSERT_EQUAL(std::string("Ada"), page.data().asArray()[0]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Alan"), page.data().asArray()[1]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), page.meta()["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), page.meta()["last_page"].asInt());
    Reply found = alice.get("/v1/crm/contacts?search=grac");
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), found.data().size());
    CPPUNIT_ASSERT_EQUAL(std::string("Grace"), found.data().asArray()[0]["name"].asString());
    Reply badSort = alice.get("/v1/crm/contacts?sort=shoe_size");
    CPPUNIT_ASSERT_EQUAL(422, badSort.status);
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), badSort.fieldErrors("sort").size());
  }

  // A keyset list (decisions §13) whose plan does not depend on its values
  // is planned once per session on PostgreSQL, not on every request: after
  // the five custom plans of plan_cache_mode = auto, the prepared statement
  // runs its generic plan (docs/performance.md, "Querying lists at scale").
  // With its LIMIT bound, PostgreSQL priced the generic plan as if a tenth
  // of the rows were read and planned every execution again.
  void aFilteredListKeepsItsGenericPlan() {
    // One session, so that the lists and the check below share it.
    Harness harness({.modules = {"contacts"}, .settings = {{"database.pool_size", "1"}}});
    Client alice = harness.signUp();
    rapport::Database& db = harness.database();
    // Enough contacts for the planner to choose between plans, with statistics.
    db.exec(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
        "INSERT INTO contacts (id, company_id, name, tags, created_at, updated_at) "
        "SELECT 'cont_bulk' || i, ?, 'Person ' || i, '[]', i, i FROM n",
        {alice.companyId()});
    const bool postgres = harness.dialect() == rapport::Dialect::PostgreSQL;
    if (postgres) db.exec("ANALYZE contacts");
    // filter={"name":{"gte":"m"}}, by name, 20 at a time: the name index.
    const std::string list =
        "/v1/crm/contacts?filter=%7B%22name%22%3A%7B%22gte%22%3A%22m%22%7D%7D&sort=name&limit=20";
    for (int i = 0; i < 8; ++i) {
      Reply page = alice.get(list);
      CPPUNIT_ASSERT_EQUAL(200, page.status);
      CPPUNIT_ASSERT_EQUAL(std::size_t(20), page.data().size());
      CPPUNIT_ASSERT_EQUAL(std::string("Person 1"), page.data().asArray()[0]["name"].asString());
    }
    if (!postgres) return;  // SQLite plans a statement once, when it is prepared
    const rapport::Result plans = db.query(
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE ?",
        {"%FROM contacts WHERE company_id = $1 AND lower(name) >= $2 %"});
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), plans.size());
    // Eight executions: five custom plans, then the generic one three times.
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5), plans.front().i64("custom_plans"));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), plans.front().i64("generic_plans"));
  }

  void anotherCompanysContactIsNotFound() {
    Harness harness({.modules = {"contacts"}});
    Client alice = harness.signUp();
    Client mallory = harness.signUp();
    Reply made = alice.post("/v1/crm/contacts", Json::object({{"name", "Ada"}}));
    const std::string path = "/v1/crm/contacts/" + made.data()["id"].asString();
    CPPUNIT_ASSERT_EQUAL(404, mallory.get(path).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.patch(path, Json::object({{"name", "Eve"}})).status);
    CPPUNIT_ASSERT_EQUAL(404, mallory.del(path).status);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), mallory.get("/v1/crm/contacts").meta()["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("Ada"), alice.get(path).data()["name"].asString());
    CPPUNIT_ASSERT_EQUAL(401, harness.anonymous().get(path).status);
  }

  void ownerMustBeAMemberOfTheCompany() {
    Harness harness({.modules = {"contacts"}});
    Client alice = harness.signUp();
    Client member = harness.join(alice, Role::Member);
    Client stranger = harness.signUp();
    // Any member may create contacts and own them.
    Reply owned = member.post("/v1/crm/contacts",
                              Json::object({{"name", "Ada"}, {"owner_id", member.userId()}}));
    CPPUNIT_ASSERT_EQUAL(201, owned.status);
    CPPUNIT_ASSERT_EQUAL(member.userId(), owned.data()["owner_id"].asString());
    Reply foreign = alice.post("/v1/crm/contacts",
                               Json::object({{"name", "Ada"}, {"owner_id", stranger.userId()}}));
    CPPUNIT_ASSERT_EQUAL(404, foreign.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Owner not found."), foreign.message());
  }

  void eachChangeIsAnEvent() {
    Harness harness({.modules = {"contacts"}});
    Client alice = harness.signUp();
    Reply made = alice.post("/v1/crm/contacts", Json::object({{"name", "Ada"}}));
    const std::string id = made.data()["id"].asString();
    alice.patch("/v1/crm/contacts/" + id, Json::object({{"phone", "+1 555"}}));
    alice.del("/v1/crm/contacts/" + id);
    // A refused change records nothing.
    alice.post("/v1/crm/contacts", Json::object());
    const std::vector<Json> events = harness.events(alice);
    CPPUNIT_ASSERT_EQUAL(std::string("crm.contact.created,crm.contact.updated,crm.contact.deleted"),
                         eventTypes(events));
    for (const Json& event : events) {
      CPPUNIT_ASSERT_EQUAL(std::string("contacts"), event["module"].asString());
      CPPUNIT_ASSERT_EQUAL(id, event["data"]["id"].asString());
    }
    CPPUNIT_ASSERT_EQUAL(std::string("+1 555"), events[1]["data"]["phone"].asString());
  }

  void companyLinkNeedsTheCompaniesModule() {
    Harness harness({.modules = {"contacts"}});
    Reply refused = harness.signUp().post(
        "/v1/crm/contacts", Json::object({{"name", "Ada"}, {"company_id", "comp_x"}}));
    CPPUNIT_ASSERT_EQUAL(422, refused.status);
    CPPUNIT_ASSERT_EQUAL(
        std::string("The company_id field cannot be used: the companies module is not enabled."),
        refused.fieldErrors("company_id").at(0));
  }

  // docs/modules/contacts.md, "Concurrency": the company check locks the
  // company's row for the contact's transaction, so a contact linked while
  // its company is deleted either fails (the delete came first: 404) or is
  // unlinked by the delete; never left pointing at a deleted company.
  // Both requests start together on two threads, round after round.
  void companyLinkRacesTheCompanysDelete() {
    Harness harness({.modules = {"contacts", "companies"}});
    Client alice = harness.signUp();
    int linkedThenUnlinked = 0, refused = 0;
    for (int round = 0; round < 20; ++round) {
      Reply company = alice.post("/v1/crm/companies", Json::object({{"name", "Acme"}}));
      CPPUNIT_ASSERT_EQUAL(201, company.status);
      const std::string companyId = company.data()["id"].asString();
      Reply created, deleted;
      std::latch start(2);
      std::thread linker([&] {
        start.arrive_and_wait();
        created = alice.post("/v1/crm/contacts",
                             Json::object({{"name", "Ada"}, {"company_id", companyId}}));
      });
      std::thread remover([&] {
        start.arrive_and_wait();
        deleted = alice.del("/v1/crm/companies/" + companyId);
      });
      linker.join();
      remover.join();
      CPPUNIT_ASSERT_EQUAL(200, deleted.status);
      if (created.status == 404) {
        CPPUNIT_ASSERT_EQUAL(std::string("Company not found."), created.message());
        ++refused;
        continue;
      }
      CPPUNIT_ASSERT_EQUAL(201, created.status);
      ++linkedThenUnlinked;
      Reply contact = alice.get("/v1/crm/contacts/" + created.data()["id"].asString());
      CPPUNIT_ASSERT_EQUAL(200, contact.status);
      CPPUNIT_ASSERT(contact.data()["company_id"].isNull());
    }
    CPPUNIT_ASSERT_EQUAL(20, linkedThenUnlinked + refused);
    // Below the API as well: no contact names a company that is gone.
    const rapport::Result dangling = harness.database().query(
        "SELECT COUNT(*) AS n FROM contacts WHERE crm_company_id IS NOT NULL "
        "AND crm_company_id NOT IN (SELECT id FROM crm_companies)");
    CPPUNIT_ASSERT_EQUAL(std::int64_t(0), dangling.front().i64("n"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ContactsModuleTest);
