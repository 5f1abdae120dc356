// The caller's profile and password (decisions §2): GET and PATCH
// /user/profile, PATCH /user/password (every other token revoked at once,
// the current one kept).
#include <cppunit/extensions/HelperMacros.h>

#include <cctype>

#include "e2e/members/MembersSuite.h"
#include "rapport/validation.h"

using namespace rapport::e2e;

namespace {

Json passwordChange(const std::string& current, const std::string& password,
                    const std::string& confirmation) {
  return Json::object({{"current_password", current},
                       {"password", password},
                       {"password_confirmation", confirmation}});
}

}  // namespace

class ProfileTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProfileTest);
  CPPUNIT_TEST(testShowProfile);
  CPPUNIT_TEST(testUpdateProfile);
  CPPUNIT_TEST(testUpdateProfileValidation);
  CPPUNIT_TEST(testTakenEmailIs422);
  CPPUNIT_TEST(testChangePassword);
  CPPUNIT_TEST(testWrongCurrentPasswordIs422);
  CPPUNIT_TEST(testNewPasswordRules);
  CPPUNIT_TEST(testProfileNeedsAToken);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testShowProfile() {
    HttpClient client(membersServer().port());
    const Account account = registerUser(client, "profile");
    const HttpResult result = client.get("/v1/user/profile", bearer(account.token));
    const Json data = E2E_ASSERT_DATA(200, result);
    E2E_ASSERT_COMMON_HEADERS(result);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(data.dump(), std::size_t(7), data.asObject().size());
    CPPUNIT_ASSERT_MESSAGE(data.dump(), data["email_verified_at"].isNull());
    CPPUNIT_ASSERT_EQUAL(account.userId, data["id"].asString());
    CPPUNIT_ASSERT_EQUAL(account.name, data["name"].asString());
    CPPUNIT_ASSERT_EQUAL(account.email, data["email"].asString());
    CPPUNIT_ASSERT_MESSAGE(data.dump(), data["two_factor_enabled"].isBool());
    CPPUNIT_ASSERT(!data["two_factor_enabled"].asBool());
    const std::int64_t created = E2E_ASSERT_ISO_UTC(data["created_at"]);
    CPPUNIT_ASSERT_EQUAL(created, E2E_ASSERT_ISO_UTC(data["updated_at"]));
  }

  void testUpdateProfile() {
    HttpClient client(membersServer().port());
    const Account account = registerUser(client, "update");
    const Json before = E2E_ASSERT_DATA(200, client.get("/v1/user/profile", bearer(account.token)));
    // GET /auth/me answers from the token cache: it must follow the changes below.
    CPPUNIT_ASSERT_EQUAL(
        account.email,
        E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)))["email"].asString());
    const std::string email = uniqueEmail("Renamed");
    const HttpResult result = client.patch(
        "/v1/user/profile",
        Json::object({{"name", "  Grace Hopper "},
                      {"email", email},
                      {"current_password", account.password}}),  // needed for an e-mail change
        bearer(account.token));
    const Json data = E2E_ASSERT_DATA(200, result);
    CPPUNIT_ASSERT_EQUAL(std::string("Grace Hopper"), data["name"].asString());
    CPPUNIT_ASSERT_EQUAL(email, data["email"].asString());  // as typed, case kept
    CPPUNIT_ASSERT_EQUAL(before["created_at"].asString(), data["created_at"].asString());
    CPPUNIT_ASSERT_MESSAGE(data.dump(),
                           data["updated_at"].asString() > before["updated_at"].asString());

    // Only what was sent changes.
    const Json renamed = E2E_ASSERT_DATA(
        200,
        client.patch("/v1/user/profile", Json::object({{"name", "Grace"}}), bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(email, renamed["email"].asString());
    // Its own address, in another case, is not "taken".
    E2E_ASSERT_DATA(
        200, client.patch("/v1/user/profile", Json::object({{"email", rapport::toLower(email)}}),
                          bearer(account.token)));

    // The new address logs in (any case); the old one no longer does.
    E2E_ASSERT_DATA(200, login(client, email, account.password));
    E2E_ASSERT_ERROR(401, login(client, account.email, account.password));
    const Json me = E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(std::string("Grace"), me["name"].asString());
    CPPUNIT_ASSERT_EQUAL(rapport::toLower(email), me["email"].asString());
  }

  void testUpdateProfileValidation() {
    HttpClient client(membersServer().port());
    const Account account = registerUser(client, "badprofile");
    const std::vector<std::pair<std::string, Json>> invalid = {
        {"name", Json()},
        {"name", Json("   ")},
        {"name", Json(42)},
        {"name", Json(std::string(256, 'n'))},
        {"email", Json()},
        {"email", Json("")},
        {"email", Json("not-an-email")},
        {"email", Json::array()},
    };
    for (const auto& [field, value] : invalid) {
      const HttpResult result =
          client.patch("/v1/user/profile", Json::object({{field, value}}), bearer(account.token));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains(field));
    }
    E2E_ASSERT_ERROR(400, client.send("PATCH", "/v1/user/profile", std::string("\"name\""),
                                      bearer(account.token)));
    const Json unchanged =
        E2E_ASSERT_DATA(200, client.get("/v1/user/profile", bearer(account.token)));
    CPPUNIT_ASSERT_EQUAL(account.name, unchanged["name"].asString());
    CPPUNIT_ASSERT_EQUAL(account.email, unchanged["email"].asString());
  }

  void testTakenEmailIs422() {
    HttpClient client(membersServer().port());
    const Account account = registerUser(client, "taker");
    const Account other = registerUser(client, "taken");
    std::string shouted = other.email;
    for (char& c : shouted) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const HttpResult result =
        client.patch("/v1/user/profile", Json::object({{"email", shouted}}), bearer(account.token));
    const Json error = E2E_ASSERT_ERROR(422, result);
    CPPUNIT_ASSERT_EQUAL(std::string("The email has already been taken."),
                         error["errors"]["email"].asArray()[0].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("The email has already been taken."),
                         error["message"].asString());
  }

  void testChangePassword() {
    HttpClient client(membersServer().port());
    const Account account = registerUser(client, "password");
    const std::string other =
        E2E_ASSERT_DATA(200, login(client, account.email, account.password))["token"].asString();
    const std::string remembered =
        E2E_ASSERT_DATA(200, login(client, account.email, account.password, true))["token"]
            .asString();
    const std::string second = createCompany(client, account.token, "Password Second");
    const std::string elsewhere = switchContext(client, account.token, second);
    for (const std::string& token : {other, remembered, elsewhere}) {  // warm the token cache
      E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(token)));
    }

    const std::string fresh = "a brand new secret";
    const HttpResult result = client.patch(
        "/v1/user/password", passwordChange(account.password, fresh, fresh), bearer(account.token));
    E2E_ASSERT_STATUS(200, result);
    const Json body = E2E_ASSERT_JSON(result);
    CPPUNIT_ASSERT_MESSAGE(describe(result), body["message"].isString());
    CPPUNIT_ASSERT_MESSAGE("password change answers with a message only: " + describe(result),
                           !body.contains("data") && !body.contains("errors"));

    // Every other token is revoked at once, whatever its company or lifetime.
    for (const std::string& token : {other, remembered, elsewhere}) {
      E2E_ASSERT_ERROR(401, client.get("/v1/auth/me", bearer(token)));
    }
    // The current one stays.
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(account.token)));
    E2E_ASSERT_DATA(200, login(client, account.email, fresh));
    E2E_ASSERT_ERROR(401, login(client, account.email, account.password));
  }

  void testWrongCurrentPasswordIs422() {
    HttpClient client(membersServer().port());
    const Account account = registerUser(client, "wrongcurrent");
    const std::string other =
        E2E_ASSERT_DATA(200, login(client, account.email, account.password))["token"].asString();
    const HttpResult result = client.patch(
        "/v1/user/password", passwordChange("not the password", "another secret", "another secret"),
        bearer(account.token));
    const Json error = E2E_ASSERT_ERROR(422, result);
    CPPUNIT_ASSERT_EQUAL(std::string("The current password is incorrect."),
                         error["errors"]["current_password"].asArray()[0].asString());
    // Nothing changed: no token revoked, the old password still logs in.
    E2E_ASSERT_DATA(200, client.get("/v1/auth/me", bearer(other)));
    E2E_ASSERT_DATA(200, login(client, account.email, account.password));
  }

  void testNewPasswordRules() {
    HttpClient client(membersServer().port());
    const Account account = registerUser(client, "rules");
    const std::string& current = account.password;
    const std::vector<std::pair<Json, std::string>> invalid = {
        {passwordChange(current, "short", "short"), "password"},
        {passwordChange(current, std::string(129, 'p'), std::string(129, 'p')), "password"},
        {passwordChange(current, "long enough 1", "long enough 2"), "password"},
        {Json::object({{"current_password", current}, {"password", "long enough"}}),
         "password_confirmation"},
        {Json::object({{"password", "long enough"}, {"password_confirmation", "long enough"}}),
         "current_password"},
        {passwordChange(current, "", ""), "password"},
    };
    for (const auto& [body, field] : invalid) {
      const HttpResult result = client.patch("/v1/user/password", body, bearer(account.token));
      const Json error = E2E_ASSERT_ERROR(422, result);
      CPPUNIT_ASSERT_MESSAGE(describe(result), error["errors"].contains(field));
    }
    // Eight characters, kept as typed (spaces included), are enough.
    const std::string eight = " 1234567";
    E2E_ASSERT_STATUS(200, client.patch("/v1/user/password", passwordChange(current, eight, eight),
                                        bearer(account.token)));
    E2E_ASSERT_DATA(200, login(client, account.email, eight));
  }

  void testProfileNeedsAToken() {
    HttpClient client(membersServer().port());
    E2E_ASSERT_ERROR(401, client.get("/v1/user/profile"));
    E2E_ASSERT_ERROR(401, client.patch("/v1/user/profile", Json::object({{"name", "x"}})));
    E2E_ASSERT_ERROR(401, client.patch("/v1/user/password", Json::object()));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProfileTest);
