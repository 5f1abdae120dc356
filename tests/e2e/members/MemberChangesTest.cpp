// Changing and removing members of the active company (decisions §2): who
// may, the last owner, and that both take effect on the very next request
// (a removed member's tokens for the company answer 401, a changed role
// applies at once).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/members/MembersSuite.h"
#include "rapport/ids.h"

using namespace rapport::e2e;

namespace {

constexpr const char* kLastOwner = "The company must keep at least one owner.";

}  // namespace

class MemberChangesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MemberChangesTest);
  CPPUNIT_TEST(testOwnerChangesARole);
  CPPUNIT_TEST(testPromotionTakesEffectAtOnce);
  CPPUNIT_TEST(testDemotionTakesEffectAtOnce);
  CPPUNIT_TEST(testOnlyOwnersChangeRoles);
  CPPUNIT_TEST(testChangeRoleRefusals);
  CPPUNIT_TEST(testLastOwnerCannotBeDemoted);
  CPPUNIT_TEST(testRemoveMember);
  CPPUNIT_TEST(testRemovedMemberTokensStopAtOnce);
  CPPUNIT_TEST(testAdminRemovesMembersButNotOwners);
  CPPUNIT_TEST(testPlainMemberMayNotRemove);
  CPPUNIT_TEST(testRemoveRefusals);
  CPPUNIT_TEST(testLastOwnerCannotBeRemoved);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testOwnerChangesARole() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "roleowner");
    const Account bob = registerUser(client, "rolebob");
    joinAs(client, owner, bob, "member");
    const HttpResult result = changeRole(client, owner.token, bob.userId, "admin");
    const Json data = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(data.dump(), std::size_t(5), data.asObject().size());
    CPPUNIT_ASSERT_EQUAL(bob.userId, data["user_id"].asString());
    CPPUNIT_ASSERT_EQUAL(bob.email, data["email"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("admin"), data["role"].asString());
    E2E_ASSERT_ISO_UTC(data["joined_at"]);
    const Json listed =
        E2E_ASSERT_DATA(200, client.get("/v1/company/members", bearer(owner.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("admin"), listed.asArray()[1]["role"].asString());
    // The same role again changes nothing and is no error.
    E2E_ASSERT_DATA(200, changeRole(client, owner.token, bob.userId, "admin"));
  }

  void testPromotionTakesEffectAtOnce() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "promoowner");
    const Account bob = registerUser(client, "promobob");
    const Account cat = registerUser(client, "promocat");
    const std::string bobHere = joinAs(client, owner, bob, "member");
    E2E_ASSERT_ERROR(403, addMember(client, bobHere, cat.email, "member"));  // role now cached
    E2E_ASSERT_DATA(200, changeRole(client, owner.token, bob.userId, "admin"));
    E2E_ASSERT_DATA(201, addMember(client, bobHere, cat.email, "member"));
    E2E_ASSERT_DATA(200, changeRole(client, owner.token, bob.userId, "owner"));
    E2E_ASSERT_DATA(200, changeRole(client, bobHere, cat.userId, "admin"));
  }

  void testDemotionTakesEffectAtOnce() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "demoowner");
    const Account bob = registerUser(client, "demobob");
    const Account cat = registerUser(client, "democat");
    const std::string bobHere = joinAs(client, owner, bob, "admin");
    E2E_ASSERT_DATA(200, client.get("/v1/company/members", bearer(bobHere)));  // cached as admin
    E2E_ASSERT_DATA(200, changeRole(client, owner.token, bob.userId, "member"));
    E2E_ASSERT_ERROR(403, addMember(client, bobHere, cat.email, "member"));
    // He is still a member: his token works for what members may do.
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), memberIds(client, bobHere).size());
  }

  void testOnlyOwnersChangeRoles() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "onlyowner");
    const Account admin = registerUser(client, "onlyadmin");
    const Account bob = registerUser(client, "onlybob");
    const std::string adminHere = joinAs(client, owner, admin, "admin");
    const std::string bobHere = joinAs(client, owner, bob, "member");
    const HttpResult byAdmin = changeRole(client, adminHere, bob.userId, "admin");
    E2E_ASSERT_ERROR(403, byAdmin);
    CPPUNIT_ASSERT_EQUAL(std::string("Forbidden"), byAdmin.reason);
    E2E_ASSERT_ERROR(403, changeRole(client, adminHere, admin.userId, "owner"));
    E2E_ASSERT_ERROR(403, changeRole(client, bobHere, bob.userId, "admin"));
    const Json listed =
        E2E_ASSERT_DATA(200, client.get("/v1/company/members", bearer(owner.token)));
    CPPUNIT_ASSERT(pluck(listed, "role") == (std::vector<std::string>{"owner", "admin", "member"}));
  }

  void testChangeRoleRefusals() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "chrefowner");
    const Account bob = registerUser(client, "chrefbob");
    const Account stranger = registerUser(client, "chrefstranger");
    joinAs(client, owner, bob, "member");

    for (const std::string& id : {stranger.userId, "user_" + randomHex(26),
                                  "cont_" + bob.userId.substr(5), std::string("nonsense")}) {
      const HttpResult result = changeRole(client, owner.token, id, "admin");
      CPPUNIT_ASSERT_EQUAL(std::string("Member not found."),
                           E2E_ASSERT_ERROR(404, result)["message"].asString());
    }
    for (const Json& body : {Json::object(), Json::object({{"role", "root"}}),
                             Json::object({{"role", Json()}}), Json::object({{"role", 1}})}) {
      const HttpResult result =
          client.patch("/v1/company/members/" + bob.userId, body, bearer(owner.token));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("role"));
    }
    // A member of another company is not a member of this one.
    E2E_ASSERT_ERROR(404, changeRole(client, stranger.token, bob.userId, "admin"));
  }

  void testLastOwnerCannotBeDemoted() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "lastowner");
    const Account bob = registerUser(client, "lastbob");
    for (const std::string role : {"admin", "member"}) {
      const HttpResult result = changeRole(client, owner.token, owner.userId, role);
      CPPUNIT_ASSERT_EQUAL(std::string(kLastOwner),
                           E2E_ASSERT_ERROR(409, result)["message"].asString());
    }
    // With a second owner, one may step down; the other then may not.
    const std::string bobHere = joinAs(client, owner, bob, "owner");
    E2E_ASSERT_DATA(200, changeRole(client, owner.token, owner.userId, "admin"));
    E2E_ASSERT_ERROR(409, changeRole(client, bobHere, bob.userId, "member"));
    const Json listed = E2E_ASSERT_DATA(200, client.get("/v1/company/members", bearer(bobHere)));
    CPPUNIT_ASSERT(pluck(listed, "role") == (std::vector<std::string>{"admin", "owner"}));
  }

  void testRemoveMember() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "rmowner");
    const Account bob = registerUser(client, "rmbob");
    joinAs(client, owner, bob, "member");
    const HttpResult result = removeMember(client, owner.token, bob.userId);
    E2E_ASSERT_STATUS(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    const Json body = E2E_ASSERT_JSON(result);
    CPPUNIT_ASSERT_EQUAL(std::string("Member removed."), body["message"].asString());
    CPPUNIT_ASSERT_MESSAGE("removal answers with a message only: " + describe(result),
                           !body.contains("data") && !body.contains("errors"));
    CPPUNIT_ASSERT(memberIds(client, owner.token) == std::vector<std::string>{owner.userId});
    E2E_ASSERT_ERROR(404, removeMember(client, owner.token, bob.userId));
    // He can be added again later.
    E2E_ASSERT_DATA(201, addMember(client, owner.token, bob.email, "member"));
  }

  void testRemovedMemberTokensStopAtOnce() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "tokowner");
    const Account bob = registerUser(client, "tokbob");
    const std::string bobHere = joinAs(client, owner, bob, "admin");
    const std::string bobAgain = switchContext(client, bob.token, owner.companyId);
    for (const std::string& token : {bobHere, bobAgain}) {  // warm the token cache
      E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(token)));
    }
    E2E_ASSERT_STATUS(200, removeMember(client, owner.token, bob.userId));
    for (const std::string& token : {bobHere, bobAgain}) {
      E2E_ASSERT_ERROR(401, client.get("/v1/auth/me", bearer(token)));
      E2E_ASSERT_ERROR(401, client.get("/v1/company/members", bearer(token)));
      E2E_ASSERT_ERROR(401, client.post("/v1/auth/refresh", Json::object(), bearer(token)));
    }
    // Re-adding him does not bring the old tokens back.
    E2E_ASSERT_DATA(201, addMember(client, owner.token, bob.email, "member"));
    E2E_ASSERT_ERROR(401, client.get("/v1/auth/me", bearer(bobHere)));
    // His token for his own company is untouched; re-added, he may switch in again.
    const Json me = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(bob.token)));
    CPPUNIT_ASSERT_EQUAL(bob.companyId, me["company_id"].asString());
    switchContext(client, bob.token, owner.companyId);
  }

  void testAdminRemovesMembersButNotOwners() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "armowner");
    const Account admin = registerUser(client, "armadmin");
    const Account bob = registerUser(client, "armbob");
    const Account cat = registerUser(client, "armcat");
    const std::string adminHere = joinAs(client, owner, admin, "admin");
    joinAs(client, owner, bob, "member");
    joinAs(client, owner, cat, "owner");
    for (const std::string& id : {owner.userId, cat.userId}) {
      const HttpResult refused = removeMember(client, adminHere, id);
      E2E_ASSERT_ERROR(403, refused);
      CPPUNIT_ASSERT_EQUAL(std::string("Forbidden"), refused.reason);
    }
    E2E_ASSERT_STATUS(200, removeMember(client, adminHere, bob.userId));
    // An admin may also leave.
    E2E_ASSERT_STATUS(200, removeMember(client, adminHere, admin.userId));
    E2E_ASSERT_ERROR(401, client.get("/v1/auth/me", bearer(adminHere)));
    CPPUNIT_ASSERT(memberIds(client, owner.token) ==
                   (std::vector<std::string>{owner.userId, cat.userId}));
  }

  void testPlainMemberMayNotRemove() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "pmowner");
    const Account bob = registerUser(client, "pmbob");
    const Account cat = registerUser(client, "pmcat");
    const std::string bobHere = joinAs(client, owner, bob, "member");
    joinAs(client, owner, cat, "member");
    for (const std::string& id : {cat.userId, owner.userId, bob.userId}) {
      E2E_ASSERT_ERROR(403, removeMember(client, bobHere, id));
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), memberIds(client, owner.token).size());
  }

  void testRemoveRefusals() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "rmrefowner");
    const Account stranger = registerUser(client, "rmrefstranger");
    for (const std::string& id :
         {stranger.userId, "user_" + randomHex(26), "comp_" + owner.userId.substr(5)}) {
      const HttpResult result = removeMember(client, owner.token, id);
      CPPUNIT_ASSERT_EQUAL(std::string("Member not found."),
                           E2E_ASSERT_ERROR(404, result)["message"].asString());
    }
    // The stranger, owner of his own company, cannot reach into this one.
    E2E_ASSERT_ERROR(404, removeMember(client, stranger.token, owner.userId));
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(owner.token)));
  }

  void testLastOwnerCannotBeRemoved() {
    HttpClient client(membersServer().port());
    const Account owner = registerUser(client, "rmlastowner");
    const Account bob = registerUser(client, "rmlastbob");
    const HttpResult result = removeMember(client, owner.token, owner.userId);
    CPPUNIT_ASSERT_EQUAL(std::string(kLastOwner),
                         E2E_ASSERT_ERROR(409, result)["message"].asString());
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(owner.token)));
    // A second owner may remove the first; then he is the last one.
    const std::string bobHere = joinAs(client, owner, bob, "owner");
    E2E_ASSERT_STATUS(200, removeMember(client, bobHere, owner.userId));
    E2E_ASSERT_ERROR(401, client.get("/v1/auth/me", bearer(owner.token)));
    E2E_ASSERT_ERROR(409, removeMember(client, bobHere, bob.userId));
    E2E_ASSERT_ERROR(409, changeRole(client, bobHere, bob.userId, "admin"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(MemberChangesTest);
