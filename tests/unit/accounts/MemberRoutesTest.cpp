// /company/members (decisions §2) through the fake Registry, on both
// engines: the list, who may add, change and remove whom, the last owner,
// and that a removed member's tokens (and a changed role) apply at once.
#include <cppunit/extensions/HelperMacros.h>

#include <atomic>
#include <memory>
#include <thread>

#include "AccountsHarness.h"
#include "rapport/ids.h"

using rapport::Json;
using rapport::Response;
using rapport::test::accounts::AccountsHarness;
using rapport::test::accounts::expectError;
using rapport::test::accounts::hasFieldError;
using User = AccountsHarness::User;

class MemberRoutesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(MemberRoutesTest);
  CPPUNIT_TEST(testRouteRoles);
  CPPUNIT_TEST(testListIsOldestFirstWithMeta);
  CPPUNIT_TEST(testListSortAndPages);
  CPPUNIT_TEST(testAddMember);
  CPPUNIT_TEST(testAddRefusals);
  CPPUNIT_TEST(testOnlyAnOwnerAddsAnOwner);
  CPPUNIT_TEST(testChangeRoleAppliesAtOnce);
  CPPUNIT_TEST(testChangeRoleRefusals);
  CPPUNIT_TEST(testLastOwnerCannotBeDemoted);
  CPPUNIT_TEST(testConcurrentDemotionsKeepAnOwner);
  CPPUNIT_TEST(testRemoveRevokesTheCompanyTokensOnly);
  CPPUNIT_TEST(testRemoveRefusals);
  CPPUNIT_TEST(testLastOwnerCannotBeRemoved);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    h_ = std::make_unique<AccountsHarness>();
    ann_ = h_->registerUser("ann@example.com");  // owner of the company under test
    bob_ = h_->registerUser("bob@example.com");
    cat_ = h_->registerUser("cat@example.com");
  }

  void tearDown() override { h_.reset(); }

  void testRouteRoles() {
    const std::string bobToken = joined(bob_, "member");
    for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
             {"POST", "/company/members"},
             {"PATCH", "/company/members/{user_id}"},
             {"DELETE", "/company/members/{user_id}"}}) {
      const auto e = expectError([&] {
        h_->call(method, path, bobToken, Json::object({{"email", cat_.email}, {"role", "member"}}),
                 {{"user_id", ann_.userId}});
      });
      CPPUNIT_ASSERT_EQUAL_MESSAGE(method, 403, e.status());
    }
    const std::string adminToken = joined(cat_, "admin");
    const auto e = expectError([&] { patch(adminToken, bob_.userId, "admin"); });
    CPPUNIT_ASSERT_EQUAL(403, e.status());
    CPPUNIT_ASSERT_EQUAL(200, h_->call("GET", "/company/members", bobToken).status);
  }

  void testListIsOldestFirstWithMeta() {
    h_->time.advanceSeconds(1);
    add(ann_.token, bob_.email, "member");
    h_->time.advanceSeconds(1);
    add(ann_.token, cat_.email, "admin");
    const Response r = h_->call("GET", "/company/members", ann_.token);
    CPPUNIT_ASSERT_EQUAL(std::string("OK."), r.message);
    const auto& items = r.data->asArray();
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, items.size());
    CPPUNIT_ASSERT_EQUAL(ann_.userId, items[0]["user_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("ann"), items[0]["name"].asString());
    CPPUNIT_ASSERT_EQUAL(ann_.email, items[0]["email"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), items[0]["role"].asString());
    CPPUNIT_ASSERT_EQUAL(bob_.userId, items[1]["user_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("member"), items[1]["role"].asString());
    CPPUNIT_ASSERT_EQUAL(cat_.userId, items[2]["user_id"].asString());
    CPPUNIT_ASSERT_EQUAL(rapport::isoTimestamp(h_->time.now()), items[2]["joined_at"].asString());
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, items[2].asObject().size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{3}, (*r.meta)["total"].asInt());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, (*r.meta)["last_page"].asInt());
    // Another company's members are not listed.
    const Response other = h_->call("GET", "/company/members", bob_.token);
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, other.data->size());
  }

  void testListSortAndPages() {
    h_->time.advanceSeconds(1);
    add(ann_.token, cat_.email, "member");
    h_->time.advanceSeconds(1);
    add(ann_.token, bob_.email, "member");
    CPPUNIT_ASSERT(ids({}) == (std::vector<std::string>{ann_.userId, cat_.userId, bob_.userId}));
    CPPUNIT_ASSERT(ids({{"sort", "-joined_at"}}) ==
                   (std::vector<std::string>{bob_.userId, cat_.userId, ann_.userId}));
    CPPUNIT_ASSERT(ids({{"sort", "name"}}) ==
                   (std::vector<std::string>{ann_.userId, bob_.userId, cat_.userId}));
    CPPUNIT_ASSERT(ids({{"sort", "-email"}}) ==
                   (std::vector<std::string>{cat_.userId, bob_.userId, ann_.userId}));
    CPPUNIT_ASSERT(ids({{"page", "2"}, {"per_page", "2"}}) ==
                   (std::vector<std::string>{bob_.userId}));
    for (const auto& query : std::vector<std::map<std::string, std::string>>{
             {{"sort", "role"}}, {{"per_page", "101"}}, {{"page", "0"}}}) {
      const auto e = expectError([&] { ids(query); });
      CPPUNIT_ASSERT_EQUAL(422, e.status());
    }
  }

  void testAddMember() {
    const Response r = add(ann_.token, "  BOB@example.COM ", "admin");
    CPPUNIT_ASSERT_EQUAL(201, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Member added."), r.message);
    CPPUNIT_ASSERT_EQUAL(bob_.userId, (*r.data)["user_id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("bob"), (*r.data)["name"].asString());
    CPPUNIT_ASSERT_EQUAL(bob_.email, (*r.data)["email"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("admin"), (*r.data)["role"].asString());
    CPPUNIT_ASSERT_EQUAL(rapport::isoTimestamp(h_->time.now()), (*r.data)["joined_at"].asString());
    // Bob can now switch into the company, as an admin.
    const Response switched = h_->call("POST", "/auth/context", bob_.token,
                                       Json::object({{"company_id", ann_.companyId}}));
    CPPUNIT_ASSERT_EQUAL(std::string("admin"), (*switched.data)["company"]["role"].asString());
    // An admin adds members too.
    const std::string bobToken = (*switched.data)["token"].asString();
    CPPUNIT_ASSERT_EQUAL(201, add(bobToken, cat_.email, "member").status);
  }

  void testAddRefusals() {
    auto e = expectError([&] { add(ann_.token, "nobody@example.com", "member"); });
    CPPUNIT_ASSERT_EQUAL(404, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("User not found."), std::string(e.what()));
    add(ann_.token, bob_.email, "member");
    e = expectError([&] { add(ann_.token, bob_.email, "admin"); });
    CPPUNIT_ASSERT_EQUAL(409, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("The user is already a member of this company."),
                         std::string(e.what()));
    e = expectError([&] { add(ann_.token, ann_.email, "owner"); });
    CPPUNIT_ASSERT_EQUAL(409, e.status());
    for (const Json& body : {Json::object(), Json::object({{"email", cat_.email}}),
                             Json::object({{"email", cat_.email}, {"role", "boss"}}),
                             Json::object({{"email", cat_.email}, {"role", 3}}),
                             Json::object({{"email", "not-an-email"}, {"role", "member"}})}) {
      e = expectError([&] { h_->call("POST", "/company/members", ann_.token, body); });
      CPPUNIT_ASSERT_EQUAL_MESSAGE(body.dump(), 422, e.status());
    }
    e = expectError([&] {
      h_->call("POST", "/company/members", ann_.token, Json::object({{"email", cat_.email}}));
    });
    CPPUNIT_ASSERT(hasFieldError(e, "role", "The role field is required."));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2}, members());  // Ann and Bob
  }

  void testOnlyAnOwnerAddsAnOwner() {
    const std::string adminToken = joined(bob_, "admin");
    const auto e = expectError([&] { add(adminToken, cat_.email, "owner"); });
    CPPUNIT_ASSERT_EQUAL(403, e.status());
    const Response r = add(ann_.token, cat_.email, "owner");
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), (*r.data)["role"].asString());
  }

  void testChangeRoleAppliesAtOnce() {
    const std::string bobToken = joined(bob_, "member");
    CPPUNIT_ASSERT(h_->identityOf(bobToken).role == rapport::Role::Member);  // now cached
    const Response r = patch(ann_.token, bob_.userId, "admin");
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Member updated."), r.message);
    CPPUNIT_ASSERT_EQUAL(std::string("admin"), (*r.data)["role"].asString());
    CPPUNIT_ASSERT_EQUAL(bob_.userId, (*r.data)["user_id"].asString());
    // The cached member role did not linger.
    CPPUNIT_ASSERT(h_->identityOf(bobToken).role == rapport::Role::Admin);
    patch(ann_.token, bob_.userId, "owner");
    CPPUNIT_ASSERT(h_->identityOf(bobToken).role == rapport::Role::Owner);
    // The same role again is a harmless no-op.
    CPPUNIT_ASSERT_EQUAL(200, patch(ann_.token, bob_.userId, "owner").status);
  }

  void testChangeRoleRefusals() {
    joined(bob_, "member");
    auto e = expectError([&] { patch(ann_.token, cat_.userId, "admin"); });
    CPPUNIT_ASSERT_EQUAL(404, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Member not found."), std::string(e.what()));
    for (const std::string& id : {std::string("cont_") + bob_.userId.substr(5),
                                  rapport::newId("user_"), std::string("nonsense")}) {
      e = expectError([&] { patch(ann_.token, id, "admin"); });
      CPPUNIT_ASSERT_EQUAL(404, e.status());
    }
    for (const Json& body :
         {Json::object(), Json::object({{"role", "root"}}), Json::object({{"role", Json()}})}) {
      e = expectError([&] {
        h_->call("PATCH", "/company/members/{user_id}", ann_.token, body,
                 {{"user_id", bob_.userId}});
      });
      CPPUNIT_ASSERT_EQUAL(422, e.status());
      CPPUNIT_ASSERT(hasFieldError(e, "role", ""));
    }
  }

  void testLastOwnerCannotBeDemoted() {
    auto e = expectError([&] { patch(ann_.token, ann_.userId, "admin"); });
    CPPUNIT_ASSERT_EQUAL(409, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("The company must keep at least one owner."),
                         std::string(e.what()));
    // With a second owner, either may step down, but not both.
    const std::string bobToken = joined(bob_, "owner");
    CPPUNIT_ASSERT_EQUAL(200, patch(ann_.token, ann_.userId, "member").status);
    e = expectError([&] { patch(bobToken, bob_.userId, "admin"); });
    CPPUNIT_ASSERT_EQUAL(409, e.status());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, owners());
  }

  // Two owners demoting each other at the same moment: the membership
  // changes of a company are serialised, so exactly one succeeds.
  // Two owners demoting each other at the same moment: the membership
  // changes of a company are serialised, so exactly one succeeds. The other
  // is refused with 409 (last owner), or 403 when its request started after
  // the first demotion had already made it a plain member.
  void testConcurrentDemotionsKeepAnOwner() {
    const std::string bobToken = joined(bob_, "owner");
    for (int round = 0; round < 20; ++round) {
      std::atomic<int> succeeded{0};
      std::atomic<int> refused{0};
      const auto demote = [&](const std::string& token, const std::string& userId) {
        try {
          patch(token, userId, "member");
          ++succeeded;
        } catch (const rapport::Error& e) {
          if (e.status() == 409 || e.status() == 403) ++refused;
        } catch (const std::exception&) {  // counted as neither: the test fails
        }
      };
      std::thread first(demote, ann_.token, bob_.userId);
      std::thread second(demote, bobToken, ann_.userId);
      first.join();
      second.join();
      CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, owners());
      CPPUNIT_ASSERT_EQUAL(1, succeeded.load());
      CPPUNIT_ASSERT_EQUAL(1, refused.load());
      h_->db->exec("UPDATE memberships SET role = 'owner' WHERE company_id = ?", {ann_.companyId});
      h_->tokens->invalidateUser(ann_.userId);
      h_->tokens->invalidateUser(bob_.userId);
    }
  }

  void testRemoveRevokesTheCompanyTokensOnly() {
    const std::string bobHere = joined(bob_, "member");
    const std::string bobAgain = h_->tokenFor(bob_, ann_.companyId);
    h_->identityOf(bobHere);  // cached
    const Response r = remove(ann_.token, bob_.userId);
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Member removed."), r.message);
    CPPUNIT_ASSERT(!r.data);
    CPPUNIT_ASSERT(!h_->tokens->authenticate(bobHere));
    CPPUNIT_ASSERT(!h_->tokens->authenticate(bobAgain));
    CPPUNIT_ASSERT(h_->tokens->authenticate(bob_.token));  // his own company is untouched
    // Revoked in the database, which is what other instances read.
    CPPUNIT_ASSERT_EQUAL(std::int64_t{2},
                         h_->count("SELECT COUNT(*) AS n FROM tokens WHERE user_id = ? AND "
                                   "company_id = ? AND revoked_at IS NOT NULL",
                                   {bob_.userId, ann_.companyId}));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, members());
    // Re-adding works, and old tokens stay dead.
    add(ann_.token, bob_.email, "member");
    CPPUNIT_ASSERT(!h_->tokens->authenticate(bobHere));
  }

  void testRemoveRefusals() {
    const std::string adminToken = joined(bob_, "admin");
    joined(cat_, "owner");
    auto e = expectError([&] { remove(adminToken, cat_.userId); });
    CPPUNIT_ASSERT_EQUAL(403, e.status());
    e = expectError([&] { remove(adminToken, ann_.userId); });
    CPPUNIT_ASSERT_EQUAL(403, e.status());
    for (const std::string& id : {rapport::newId("user_"), std::string("comp_x")}) {
      e = expectError([&] { remove(ann_.token, id); });
      CPPUNIT_ASSERT_EQUAL(404, e.status());
      CPPUNIT_ASSERT_EQUAL(std::string("Member not found."), std::string(e.what()));
    }
    // An admin removes a plain member, or leaves.
    const User dan = h_->registerUser("dan@example.com");
    joined(dan, "member");
    CPPUNIT_ASSERT_EQUAL(200, remove(adminToken, dan.userId).status);
    CPPUNIT_ASSERT_EQUAL(200, remove(adminToken, bob_.userId).status);
    CPPUNIT_ASSERT(!h_->tokens->authenticate(adminToken));
  }

  void testLastOwnerCannotBeRemoved() {
    auto e = expectError([&] { remove(ann_.token, ann_.userId); });
    CPPUNIT_ASSERT_EQUAL(409, e.status());
    CPPUNIT_ASSERT_EQUAL(std::string("The company must keep at least one owner."),
                         std::string(e.what()));
    CPPUNIT_ASSERT(h_->tokens->authenticate(ann_.token));
    // Another owner may remove her; then he is the last one.
    const std::string bobToken = joined(bob_, "owner");
    CPPUNIT_ASSERT_EQUAL(200, remove(bobToken, ann_.userId).status);
    CPPUNIT_ASSERT(!h_->tokens->authenticate(ann_.token));
    e = expectError([&] { remove(bobToken, bob_.userId); });
    CPPUNIT_ASSERT_EQUAL(409, e.status());
  }

 private:
  // Makes `user` a `role` of Ann's company and returns a token for it.
  std::string joined(const User& user, const std::string& role) {
    h_->join(user, ann_.companyId, role);
    return h_->tokenFor(user, ann_.companyId);
  }

  Response add(const std::string& token, const std::string& email, const std::string& role) {
    return h_->call("POST", "/company/members", token,
                    Json::object({{"email", email}, {"role", role}}));
  }

  Response patch(const std::string& token, const std::string& userId, const std::string& role) {
    return h_->call("PATCH", "/company/members/{user_id}", token, Json::object({{"role", role}}),
                    {{"user_id", userId}});
  }

  Response remove(const std::string& token, const std::string& userId) {
    return h_->call("DELETE", "/company/members/{user_id}", token, Json(), {{"user_id", userId}});
  }

  // The user ids of Ann's company list with `query`.
  std::vector<std::string> ids(const std::map<std::string, std::string>& query) {
    std::vector<std::string> out;
    const Response r = h_->call("GET", "/company/members", ann_.token, Json(), {}, query);
    for (const Json& item : r.data->asArray()) out.push_back(item["user_id"].asString());
    return out;
  }

  std::int64_t members() {
    return h_->count("SELECT COUNT(*) AS n FROM memberships WHERE company_id = ?",
                     {ann_.companyId});
  }

  std::int64_t owners() {
    return h_->count(
        "SELECT COUNT(*) AS n FROM memberships WHERE company_id = ? AND role = 'owner'",
        {ann_.companyId});
  }

  std::unique_ptr<AccountsHarness> h_;
  User ann_;
  User bob_;
  User cat_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(MemberRoutesTest);
