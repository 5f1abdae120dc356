// POST /v1/auth/register and POST /v1/auth/login (API Account and session;
// decisions §3).
#include <cppunit/extensions/HelperMacros.h>

#include <cctype>
#include <thread>
#include <vector>

#include "e2e/auth/AuthSuite.h"
#include "rapport/ids.h"

using namespace rapport::e2e;

namespace {

Account newAccount(const std::string& label) {
  Account account;
  account.name = "Grace " + label;
  account.email = uniqueEmail(label);
  account.password = "correct horse battery";
  account.companyName = "Compilers " + randomHex(4);
  return account;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

class RegisterLoginTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RegisterLoginTest);
  CPPUNIT_TEST(testRegisterReturnsTokenWithUser);
  CPPUNIT_TEST(testDuplicateEmailInAnotherCaseIs422);
  CPPUNIT_TEST(testConcurrentRegistrationsOfOneEmail);
  CPPUNIT_TEST(testPasswordRules);
  CPPUNIT_TEST(testInvalidEmailIs422);
  CPPUNIT_TEST(testLogin);
  CPPUNIT_TEST(testLoginIgnoresEmailCase);
  CPPUNIT_TEST(testRememberMeGivesLongerToken);
  CPPUNIT_TEST(testWrongPasswordAndUnknownEmailAre401MessageOnly);
  CPPUNIT_TEST(testLoginValidation);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testRegisterReturnsTokenWithUser() {
    HttpClient client(authServer().port());
    const Account account = newAccount("register");
    const HttpResult result = client.post("/v1/auth/register", registrationBody(account));
    const Json data = E2E_ASSERT_DATA(201, result);
    CPPUNIT_ASSERT_EQUAL(std::string("Created"), result.reason);
    E2E_ASSERT_COMMON_HEADERS(result);
    E2E_ASSERT_TOKEN(data, 3600);
    const Json& user = data["user"];
    CPPUNIT_ASSERT_MESSAGE(data.dump(), user.isObject());
    CPPUNIT_ASSERT_MESSAGE(data.dump(), rapport::hasPrefix(user["id"].asString(), "user_"));
    CPPUNIT_ASSERT_EQUAL(account.name, user["name"].asString());
    CPPUNIT_ASSERT_EQUAL(account.email, user["email"].asString());
    CPPUNIT_ASSERT_MESSAGE(data.dump(), rapport::hasPrefix(user["company_id"].asString(), "comp_"));
    // Nothing secret comes back.
    CPPUNIT_ASSERT(result.body.find(account.password) == std::string::npos);
    CPPUNIT_ASSERT(!user.contains("password"));

    // The token works and resolves the initial company, which the user owns.
    const std::string token = data["token"].asString();
    const Json me = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(token)));
    CPPUNIT_ASSERT_EQUAL(user["id"].asString(), me["id"].asString());
    CPPUNIT_ASSERT_EQUAL(user["company_id"].asString(), me["company_id"].asString());
    const Json company = E2E_ASSERT_DATA(
        200, client.get("/v1/user/companies/" + user["company_id"].asString(), bearer(token)));
    CPPUNIT_ASSERT_EQUAL(account.companyName, company["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("owner"), company["role"].asString());
  }

  void testDuplicateEmailInAnotherCaseIs422() {
    HttpClient client(authServer().port());
    Account first = newAccount("dup");
    first.email = "Mixed.Case-" + randomHex(10) + "@Example.COM";
    E2E_ASSERT_DATA(201, client.post("/v1/auth/register", registrationBody(first)));

    const std::vector<std::string> variants = {first.email, upper(first.email), lower(first.email)};
    for (const std::string& email : variants) {
      Account second = newAccount("dup2");
      second.email = email;
      const HttpResult result = client.post("/v1/auth/register", registrationBody(second));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("email"));
    }
  }

  // Six clients register one e-mail at the same moment: one wins (201), the
  // others get the 422 on email, none a 500.
  void testConcurrentRegistrationsOfOneEmail() {
    const std::string email = uniqueEmail("race");
    std::vector<int> statuses(6, 0);
    std::vector<std::string> bodies(6);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < statuses.size(); ++i) {
      threads.emplace_back([&, i] {
        HttpClient client(authServer().port());
        Account account = newAccount("race" + std::to_string(i));
        account.email = i % 2 ? upper(email) : email;
        const HttpResult result = client.post("/v1/auth/register", registrationBody(account));
        statuses[i] = result.status;
        bodies[i] = result.body;
      });
    }
    for (auto& t : threads) t.join();
    int created = 0;
    for (std::size_t i = 0; i < statuses.size(); ++i) {
      if (statuses[i] == 201) {
        ++created;
        continue;
      }
      CPPUNIT_ASSERT_EQUAL_MESSAGE(bodies[i], 422, statuses[i]);
      CPPUNIT_ASSERT_MESSAGE(bodies[i], Json::parse(bodies[i])["errors"].contains("email"));
    }
    CPPUNIT_ASSERT_EQUAL(1, created);
  }

  void testPasswordRules() {
    HttpClient client(authServer().port());
    {
      Account account = newAccount("short");
      account.password = "seven77";
      const HttpResult result = client.post("/v1/auth/register", registrationBody(account));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("password"));
    }
    {
      Account account = newAccount("eight");
      account.password = "ei8ht-ok";  // exactly the minimum (and not a common one)
      E2E_ASSERT_DATA(201, client.post("/v1/auth/register", registrationBody(account)));
    }
    {
      Account account = newAccount("long");
      account.password = std::string(129, 'p');  // decisions §3: at most 128
      const HttpResult result = client.post("/v1/auth/register", registrationBody(account));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("password"));
    }
    {
      Account account = newAccount("mismatch");
      Json body = registrationBody(account);
      body.set("password_confirmation", account.password + "!");
      const HttpResult result = client.post("/v1/auth/register", body);
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result),
                             error["errors"].contains("password") ||
                                 error["errors"].contains("password_confirmation"));
      // Nothing was created: the e-mail is still free.
      E2E_ASSERT_DATA(201, client.post("/v1/auth/register", registrationBody(account)));
    }
  }

  void testInvalidEmailIs422() {
    HttpClient client(authServer().port());
    for (const std::string email : {"not-an-email", "@example.com", "a@", ""}) {
      Account account = newAccount("bademail");
      account.email = email;
      const HttpResult result = client.post("/v1/auth/register", registrationBody(account));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("email"));
    }
  }

  void testLogin() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "login");
    const HttpResult result = login(client, account.email, account.password);
    const Json data = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    E2E_ASSERT_TOKEN(data, 3600);
    CPPUNIT_ASSERT(data["token"].asString() != account.token);
    const Json& user = data["user"];
    CPPUNIT_ASSERT_EQUAL(account.userId, user["id"].asString());
    CPPUNIT_ASSERT_EQUAL(account.name, user["name"].asString());
    CPPUNIT_ASSERT_EQUAL(account.email, user["email"].asString());
    CPPUNIT_ASSERT_EQUAL(account.companyId, user["company_id"].asString());
    const Json me =
        E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(data["token"].asString())));
    CPPUNIT_ASSERT_EQUAL(account.userId, me["id"].asString());
    // The registration token still works: logging in again opens a second session.
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
  }

  // E-mails are unique case-insensitively, so they identify case-insensitively.
  void testLoginIgnoresEmailCase() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "case");
    const Json data = E2E_ASSERT_DATA(200, login(client, upper(account.email), account.password));
    CPPUNIT_ASSERT_EQUAL(account.userId, data["user"]["id"].asString());
  }

  void testRememberMeGivesLongerToken() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "remember");
    const Json remembered =
        E2E_ASSERT_DATA(200, login(client, account.email, account.password, true));
    E2E_ASSERT_TOKEN(remembered, 2592000);
    const Json plain = E2E_ASSERT_DATA(200, login(client, account.email, account.password, false));
    E2E_ASSERT_TOKEN(plain, 3600);
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(remembered["token"].asString())));
  }

  void testWrongPasswordAndUnknownEmailAre401MessageOnly() {
    HttpClient client(authServer().port());
    const Account account = registerUser(client, "wrong");
    const HttpResult wrong = login(client, account.email, account.password + "x");
    const Json wrongBody = E2E_ASSERT_ERROR(401, wrong);
    CPPUNIT_ASSERT_EQUAL(std::string("Unauthorized"), wrong.reason);
    E2E_ASSERT_COMMON_HEADERS(wrong);
    const HttpResult unknown = login(client, uniqueEmail("nobody"), account.password);
    const Json unknownBody = E2E_ASSERT_ERROR(401, unknown);
    // The answer does not tell which of the two was wrong.
    CPPUNIT_ASSERT_EQUAL(wrongBody["message"].asString(), unknownBody["message"].asString());
  }

  void testLoginValidation() {
    HttpClient client(authServer().port());
    const HttpResult result = client.post("/v1/auth/login", Json::object());
    const Json error = E2E_ASSERT_ERROR(422, result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("email"));
    CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains("password"));
    const HttpResult typed = client.post(
        "/v1/auth/login",
        Json::object(
            {{"email", uniqueEmail("typed")}, {"password", "whatever1"}, {"remember_me", "yes"}}));
    const Json typedError = E2E_ASSERT_ERROR(422, typed);
    CPPUNIT_ASSERT_MESSAGE(describe(typed), typedError["errors"].contains("remember_me"));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RegisterLoginTest);
