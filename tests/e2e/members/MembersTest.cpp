// Listing and adding members of the active company (decisions §2,
// /company/members): who may, what the answers look like, and the refusals.
#include <cppunit/extensions/HelperMacros.h>

#include <cctype>

#include "e2e/members/MembersSuite.h"
#include "rapport/ids.h"

using namespace rapport::e2e;

class MembersTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MembersTest);
  CPPUNIT_TEST(testListIsOldestFirstWithMeta);
  CPPUNIT_TEST(testAnyMemberMayList);
  CPPUNIT_TEST(testListPagesAndSorts);
  CPPUNIT_TEST(testAddMember);
  CPPUNIT_TEST(testAdminAddsMembersButNotOwners);
  CPPUNIT_TEST(testPlainMemberMayNotAdd);
  CPPUNIT_TEST(testAddRefusals);
  CPPUNIT_TEST(testMembersNeedAToken);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testListIsOldestFirstWithMeta() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "listowner");
    const Account bob = registerUser(client, "listbob");
    const Account cat = registerUser(client, "listcat");
    E2E_ASSERT_DATA(201, addMember(client, owner.token, bob.email, "member"));
    E2E_ASSERT_DATA(201, addMember(client, owner.token, cat.email, "admin"));

    const HttpResult result = client.get("/v1/company/members", bearer(owner.token));
    const Json data = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), data.isArray() && data.size() == 3);
    CPPUNIT_ASSERT(pluck(data, "user_id") ==
                   (std::vector<std::string>{owner.userId, bob.userId, cat.userId}));
    const Json& first = data.asArray()[0];
    CPPUNIT_ASSERT_EQUAL_MESSAGE(first.dump(), std::size_t(5), first.asObject().size());
    CPPUNIT_ASSERT_EQUAL(owner.name, first["name"].asString());
    CPPUNIT_ASSERT_EQUAL(owner.email, first["email"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), first["role"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("member"), data.asArray()[1]["role"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("admin"), data.asArray()[2]["role"].asString());
    std::int64_t previous = 0;
    for (const Json& member : data.asArray()) {
      const std::int64_t joined = E2E_ASSERT_ISO_UTC(member["joined_at"]);
      CPPUNIT_ASSERT_MESSAGE(data.dump(), joined >= previous);
      previous = joined;
    }
    const Json meta = result.json()["meta"];
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), meta["current_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(20), meta["per_page"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), meta["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(1), meta["last_page"].asInt());
    // The new members' own companies are not this company: one member each.
    CPPUNIT_ASSERT_EQUAL(std::size_t(1), memberIds(client, bob.token).size());
  }

  void testAnyMemberMayList() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "anyowner");
    const Account bob = registerUser(client, "anybob");
    const std::string bobHere = joinAs(client, owner, bob, "member");
    CPPUNIT_ASSERT(memberIds(client, bobHere) ==
                   (std::vector<std::string>{owner.userId, bob.userId}));
  }

  void testListPagesAndSorts() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "pageowner");
    const Account bob = registerUser(client, "pagebob");
    const Account cat = registerUser(client, "pagecat");
    E2E_ASSERT_DATA(201, addMember(client, owner.token, cat.email, "member"));
    E2E_ASSERT_DATA(201, addMember(client, owner.token, bob.email, "member"));

    const HttpResult paged =
        client.get("/v1/company/members?per_page=2&page=2", bearer(owner.token));
    CPPUNIT_ASSERT(pluck(E2E_ASSERT_DATA(200, paged), "user_id") ==
                   std::vector<std::string>{bob.userId});
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), paged.json()["meta"]["last_page"].asInt());
    const HttpResult past = client.get("/v1/company/members?page=9", bearer(owner.token));
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), E2E_ASSERT_DATA(200, past).size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3), past.json()["meta"]["total"].asInt());

    CPPUNIT_ASSERT(memberIds(client, owner.token, "?sort=-joined_at") ==
                   (std::vector<std::string>{bob.userId, cat.userId, owner.userId}));
    // Names are "Ada <label>": pagebob < pagecat < pageowner.
    CPPUNIT_ASSERT(memberIds(client, owner.token, "?sort=name") ==
                   (std::vector<std::string>{bob.userId, cat.userId, owner.userId}));
    CPPUNIT_ASSERT(memberIds(client, owner.token, "?sort=-email") ==
                   (std::vector<std::string>{owner.userId, cat.userId, bob.userId}));

    for (const std::string query : {"?sort=role", "?sort=password", "?per_page=101", "?page=0"}) {
      const HttpResult bad = client.get("/v1/company/members" + query, bearer(owner.token));
      const Json error = E2E_ASSERT_ERROR(422, bad);
      const std::string field = query.substr(1, query.find('=') - 1);
      CPPUNIT_ASSERT_MESSAGE(describe(bad), error["errors"].contains(field));
    }
  }

  void testAddMember() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "addowner");
    const Account bob = registerUser(client, "addbob");
    std::string shouted = bob.email;
    for (char& c : shouted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const HttpResult result = addMember(client, owner.token, shouted, "member");
    const Json data = E2E_ASSERT_DATA(201, result);
    CPPUNIT_ASSERT_EQUAL(std::string("Created"), result.reason);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(data.dump(), std::size_t(5), data.asObject().size());
    CPPUNIT_ASSERT_EQUAL(bob.userId, data["user_id"].asString());
    CPPUNIT_ASSERT_EQUAL(bob.name, data["name"].asString());
    CPPUNIT_ASSERT_EQUAL(bob.email, data["email"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("member"), data["role"].asString());
    E2E_ASSERT_ISO_UTC(data["joined_at"]);

    // Bob now belongs to the company: he can switch into it, as a member.
    const HttpResult switched = client.post(
        "/v1/auth/context", Json::object({{"company_id", owner.companyId}}), bearer(bob.token));
    const Json context = E2E_ASSERT_DATA(200, switched);
    CPPUNIT_ASSERT_EQUAL(std::string("member"), context["company"]["role"].asString());
    const auto companies =
        pluck(E2E_ASSERT_DATA(200, client.get("/v1/user/companies", bearer(bob.token))), "id");
    CPPUNIT_ASSERT(contains(companies, owner.companyId));
    const Json detail = E2E_ASSERT_DATA(
        200, client.get("/v1/user/companies/" + owner.companyId, bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::int64_t(2), detail["members_count"].asInt());
  }

  void testAdminAddsMembersButNotOwners() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "adminowner");
    const Account admin = registerUser(client, "adminadmin");
    const Account bob = registerUser(client, "adminbob");
    const Account cat = registerUser(client, "admincat");
    const std::string adminHere = joinAs(client, owner, admin, "admin");

    const HttpResult refused = addMember(client, adminHere, bob.email, "owner");
    E2E_ASSERT_ERROR(403, refused);
    CPPUNIT_ASSERT_EQUAL(std::string("Forbidden"), refused.reason);
    const Json added = E2E_ASSERT_DATA(201, addMember(client, adminHere, bob.email, "admin"));
    CPPUNIT_ASSERT_EQUAL(std::string("admin"), added["role"].asString());
    // Only an owner makes owners.
    const Json owned = E2E_ASSERT_DATA(201, addMember(client, owner.token, cat.email, "owner"));
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), owned["role"].asString());
  }

  void testPlainMemberMayNotAdd() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "plainowner");
    const Account bob = registerUser(client, "plainbob");
    const Account cat = registerUser(client, "plaincat");
    const std::string bobHere = joinAs(client, owner, bob, "member");
    for (const std::string role : {"member", "admin", "owner"}) {
      const HttpResult refused = addMember(client, bobHere, cat.email, role);
      E2E_ASSERT_ERROR(403, refused);
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), memberIds(client, owner.token).size());
  }

  void testAddRefusals() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "refuseowner");
    const Account bob = registerUser(client, "refusebob");

    const HttpResult unknown = addMember(client, owner.token, uniqueEmail("ghost"), "member");
    CPPUNIT_ASSERT_EQUAL(std::string("User not found."),
                         E2E_ASSERT_ERROR(404, unknown)["message"].asString());

    E2E_ASSERT_DATA(201, addMember(client, owner.token, bob.email, "member"));
    for (const std::string& email : {bob.email, owner.email}) {
      const HttpResult again = addMember(client, owner.token, email, "admin");
      CPPUNIT_ASSERT_EQUAL(std::string("The user is already a member of this company."),
                           E2E_ASSERT_ERROR(409, again)["message"].asString());
    }

    const std::vector<std::pair<Json, std::string>> invalid = {
        {Json::object({{"email", bob.email}, {"role", "boss"}}), "role"},
        {Json::object({{"email", bob.email}, {"role", "Owner"}}), "role"},
        {Json::object({{"email", bob.email}, {"role", 2}}), "role"},
        {Json::object({{"email", bob.email}}), "role"},
        {Json::object({{"role", "member"}}), "email"},
        {Json::object({{"email", "not-an-email"}, {"role", "member"}}), "email"},
    };
    for (const auto& [body, field] : invalid) {
      const HttpResult result = client.post("/v1/company/members", body, bearer(owner.token));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains(field));
    }
    E2E_ASSERT_ERROR(
        400, client.send("POST", "/v1/company/members", std::string("[1]"), bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), memberIds(client, owner.token).size());
  }

  void testMembersNeedAToken() {
    HttpClient client(membersServer().port());
    E2E_ASSERT_ERROR(401, client.get("/v1/company/members"));
    E2E_ASSERT_ERROR(401, client.post("/v1/company/members", Json::object()));
    E2E_ASSERT_ERROR(401, client.patch("/v1/company/members/user_x", Json::object()));
    E2E_ASSERT_ERROR(401, client.del("/v1/company/members/user_x"));
    E2E_ASSERT_ERROR(401, client.get("/v1/company/members", bearer("rpt_nonsense")));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MembersTest);
