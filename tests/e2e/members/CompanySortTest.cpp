// The sort of GET /user/companies (decisions §1: sort=field | -field, an
// unsupported field answers 422 on "sort"): name, created_at (the
// company's) and joined_at (the caller's membership; the default order,
// newest first). A company joined through /company/members tells them apart.
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/members/MembersSuite.h"

using namespace rapport::e2e;

class CompanySortTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(CompanySortTest);
  CPPUNIT_TEST(testSortFields);
  CPPUNIT_TEST(testUnsupportedSortIs422);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testSortFields() {
    HttpClient client(membersServer().port());
    // Oldest company first: Bob's, joined by Ann only at the end.
    const Account bob = registerUser(client, "sortbob");
    const Account ann = registerUser(client, "sortann");
    const std::string zulu = createCompany(client, ann.token, "zulu");
    const std::string alpha = createCompany(client, ann.token, "Alpha");
    E2E_ASSERT_DATA(201, addMember(client, bob.token, ann.email, "member"));
    const std::string& first = ann.companyId;       // "sortann Ltd ..."
    const std::string& joinedLast = bob.companyId;  // "sortbob Ltd ..."

    const auto ids = [&](const std::string& query) {
      return pluck(
          E2E_ASSERT_DATA(200, client.get("/v1/user/companies" + query, bearer(ann.token))), "id");
    };
    const std::vector<std::string> byJoin = {first, zulu, alpha, joinedLast};
    const std::vector<std::string> byJoinDesc(byJoin.rbegin(), byJoin.rend());
    CPPUNIT_ASSERT(ids("") == byJoinDesc);
    CPPUNIT_ASSERT(ids("?sort=-joined_at") == byJoinDesc);
    CPPUNIT_ASSERT(ids("?sort=joined_at") == byJoin);
    const std::vector<std::string> byCreation = {joinedLast, first, zulu, alpha};
    CPPUNIT_ASSERT(ids("?sort=created_at") == byCreation);
    CPPUNIT_ASSERT(ids("?sort=-created_at") ==
                   std::vector<std::string>(byCreation.rbegin(), byCreation.rend()));
    // Names compare case-insensitively: Alpha, sortann..., sortbob..., zulu.
    const std::vector<std::string> byName = {alpha, first, joinedLast, zulu};
    CPPUNIT_ASSERT(ids("?sort=name") == byName);
    CPPUNIT_ASSERT(ids("?sort=-name") == std::vector<std::string>(byName.rbegin(), byName.rend()));
    // Sorting and paging together.
    CPPUNIT_ASSERT(ids("?sort=name&per_page=2&page=2") ==
                   (std::vector<std::string>{joinedLast, zulu}));

    // Each item carries both times.
    const Json listed =
        E2E_ASSERT_DATA(200, client.get("/v1/user/companies?sort=created_at", bearer(ann.token)));
    const Json& bobs = listed.asArray()[0];
    CPPUNIT_ASSERT_MESSAGE(bobs.dump(), E2E_ASSERT_ISO_UTC(bobs["joined_at"]) >=
                                            E2E_ASSERT_ISO_UTC(bobs["created_at"]));
    CPPUNIT_ASSERT_EQUAL(std::string("member"), bobs["role"].asString());
  }

  void testUnsupportedSortIs422() {
    HttpClient client(membersServer().port());
    const Account ann = registerUser(client, "sortbad");
    for (const std::string sort : {"role", "id", "members_count", "", "-", "--name", "Name"}) {
      const HttpResult result = client.get("/v1/user/companies?sort=" + sort, bearer(ann.token));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("sort"));
    }
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(CompanySortTest);
