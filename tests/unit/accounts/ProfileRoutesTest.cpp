// GET and PATCH /user/profile, PATCH /user/password (decisions §2) through
// the fake Registry, on both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <memory>

#include "AccountsHarness.h"

using rapport::Json;
using rapport::Response;
using rapport::test::accounts::AccountsHarness;
using rapport::test::accounts::expectError;
using rapport::test::accounts::hasFieldError;
using User = AccountsHarness::User;

namespace {

Json passwordChange(const std::string& current, const std::string& password,
                    const std::string& confirmation) {
  return Json::object({{"current_password", current},
                       {"password", password},
                       {"password_confirmation", confirmation}});
}

Json login(const std::string& email, const std::string& password) {
  return Json::object({{"email", email}, {"password", password}});
}

}  // namespace

class ProfileRoutesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(ProfileRoutesTest);
  CPPUNIT_TEST(testShow);
  CPPUNIT_TEST(testUpdate);
  CPPUNIT_TEST(testUpdateNothingChangesNothing);
  CPPUNIT_TEST(testUpdateValidation);
  CPPUNIT_TEST(testTakenEmail);
  CPPUNIT_TEST(testChangePassword);
  CPPUNIT_TEST(testChangePasswordRefusals);
  CPPUNIT_TEST(testWrongCurrentPasswordIsThrottled);
  CPPUNIT_TEST_SUITE_END();

 public:
  void setUp() override {
    h_ = std::make_unique<AccountsHarness>();
    ann_ = h_->registerUser("Ann@Example.com");
  }

  void tearDown() override { h_.reset(); }

  void testShow() {
    const Response r = h_->call("GET", "/user/profile", ann_.token);
    const Json& data = *r.data;
    CPPUNIT_ASSERT_EQUAL(std::size_t{7}, data.asObject().size());
    CPPUNIT_ASSERT(data["email_verified_at"].isNull());  // registering proves nothing
    CPPUNIT_ASSERT_EQUAL(ann_.userId, data["id"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann"), data["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann@Example.com"), data["email"].asString());
    CPPUNIT_ASSERT_EQUAL(false, data["two_factor_enabled"].asBool());
    const std::string now = rapport::isoTimestamp(h_->time.now());
    CPPUNIT_ASSERT_EQUAL(now, data["created_at"].asString());
    CPPUNIT_ASSERT_EQUAL(now, data["updated_at"].asString());
  }

  void testUpdate() {
    const std::string created = rapport::isoTimestamp(h_->time.now());
    h_->time.advanceSeconds(5);
    Response r = update(Json::object({{"name", "  Ann Lee "}}));
    CPPUNIT_ASSERT_EQUAL(std::string("Profile updated."), r.message);
    CPPUNIT_ASSERT_EQUAL(std::string("Ann Lee"), (*r.data)["name"].asString());
    CPPUNIT_ASSERT_EQUAL(std::string("Ann@Example.com"), (*r.data)["email"].asString());
    CPPUNIT_ASSERT_EQUAL(created, (*r.data)["created_at"].asString());
    CPPUNIT_ASSERT_EQUAL(rapport::isoTimestamp(h_->time.now()), (*r.data)["updated_at"].asString());
    // Her own address in another case is not "taken".
    r = update(Json::object({{"email", "ann@example.com"}}));
    CPPUNIT_ASSERT_EQUAL(std::string("ann@example.com"), (*r.data)["email"].asString());
    // Another address needs the current password (the same one in another case did not).
    r = update(Json::object({{"name", "Ann B"},
                             {"email", " ann.b@Example.com "},
                             {"current_password", "ann-s3cret-phrase"}}));
    CPPUNIT_ASSERT_EQUAL(std::string("ann.b@Example.com"), (*r.data)["email"].asString());
    // The new address logs in; the old one no longer does.
    CPPUNIT_ASSERT_EQUAL(
        200, h_->callPublic("POST", "/auth/login", login("ANN.B@example.com", "ann-s3cret-phrase"))
                 .status);
    const auto e = expectError(
        [&] { h_->callPublic("POST", "/auth/login", login(ann_.email, "ann-s3cret-phrase")); });
    CPPUNIT_ASSERT_EQUAL(401, e.status());
    const Response shown = h_->call("GET", "/user/profile", ann_.token);
    CPPUNIT_ASSERT_EQUAL(std::string("Ann B"), (*shown.data)["name"].asString());
  }

  void testUpdateNothingChangesNothing() {
    h_->time.advanceSeconds(5);
    const Response r = update(Json::object({{"unknown", "ignored"}}));
    CPPUNIT_ASSERT_EQUAL(rapport::isoTimestamp(h_->time.now() - 5'000'000),
                         (*r.data)["updated_at"].asString());
  }

  void testUpdateValidation() {
    for (const auto& [field, value] :
         std::vector<std::pair<std::string, Json>>{{"name", Json()},
                                                   {"name", Json("   ")},
                                                   {"name", Json(12)},
                                                   {"name", Json(std::string(256, 'x'))},
                                                   {"email", Json()},
                                                   {"email", Json("")},
                                                   {"email", Json("not-an-email")},
                                                   {"email", Json(true)}}) {
      const auto e = expectError([&] { update(Json::object({{field, value}})); });
      CPPUNIT_ASSERT_EQUAL(422, e.status());
      CPPUNIT_ASSERT_MESSAGE(field + "=" + value.dump(), hasFieldError(e, field, ""));
    }
    const Response shown = h_->call("GET", "/user/profile", ann_.token);
    CPPUNIT_ASSERT_EQUAL(std::string("Ann"), (*shown.data)["name"].asString());
  }

  void testTakenEmail() {
    h_->registerUser("bob@example.com");
    const auto e = expectError([&] { update(Json::object({{"email", "BOB@example.com"}})); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "email", "The email has already been taken."));
    CPPUNIT_ASSERT_EQUAL(std::string("The email has already been taken."), std::string(e.what()));
  }

  void testChangePassword() {
    const std::string other = loginToken("ann-s3cret-phrase");
    const std::string third = loginToken("ann-s3cret-phrase");
    const Response r = changePassword(
        ann_.token, passwordChange("ann-s3cret-phrase", "new password", "new password"));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(std::string("Password changed."), r.message);
    CPPUNIT_ASSERT(!r.data);
    // Every other token is revoked, the current one stays.
    CPPUNIT_ASSERT(h_->tokens->authenticate(ann_.token));
    CPPUNIT_ASSERT(!h_->tokens->authenticate(other));
    CPPUNIT_ASSERT(!h_->tokens->authenticate(third));
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{2},
        h_->count("SELECT COUNT(*) AS n FROM tokens WHERE revoked_at IS NOT NULL"));
    // The new password logs in, the old one does not.
    loginToken("new password");
    const auto e = expectError([&] { loginToken("ann-s3cret-phrase"); });
    CPPUNIT_ASSERT_EQUAL(401, e.status());
  }

  void testChangePasswordRefusals() {
    auto e = expectError([&] {
      changePassword(ann_.token, passwordChange("password124", "new password", "new password"));
    });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "current_password", "The current password is incorrect."));
    CPPUNIT_ASSERT_EQUAL(std::string("The current password is incorrect."), std::string(e.what()));
    e = expectError(
        [&] { changePassword(ann_.token, passwordChange("ann-s3cret-phrase", "short", "short")); });
    CPPUNIT_ASSERT(hasFieldError(e, "password", "The password must be at least 8 characters."));
    e = expectError([&] {
      changePassword(ann_.token,
                     passwordChange("ann-s3cret-phrase", "new password", "new passw0rd"));
    });
    CPPUNIT_ASSERT(hasFieldError(e, "password", "The password confirmation does not match."));
    e = expectError([&] {
      changePassword(ann_.token, passwordChange("ann-s3cret-phrase", std::string(129, 'x'),
                                                std::string(129, 'x')));
    });
    CPPUNIT_ASSERT(hasFieldError(e, "password", ""));
    e = expectError([&] { changePassword(ann_.token, Json::object()); });
    for (const char* field : {"current_password", "password", "password_confirmation"}) {
      CPPUNIT_ASSERT_MESSAGE(field, hasFieldError(e, field, ""));
    }
    // Nothing changed: the old password still logs in.
    loginToken("ann-s3cret-phrase");
  }

  void testWrongCurrentPasswordIsThrottled() {
    for (int i = 0; i < 5; ++i) {
      const auto e = expectError([&] {
        changePassword(ann_.token, passwordChange("guess " + std::to_string(i), "new password",
                                                  "new password"));
      });
      CPPUNIT_ASSERT_EQUAL(422, e.status());
    }
    const auto e = expectError([&] {
      changePassword(ann_.token,
                     passwordChange("ann-s3cret-phrase", "new password", "new password"));
    });
    CPPUNIT_ASSERT_EQUAL(429, e.status());
  }

 private:
  Response update(Json body) {
    return h_->call("PATCH", "/user/profile", ann_.token, std::move(body));
  }

  Response changePassword(const std::string& token, Json body) {
    return h_->call("PATCH", "/user/password", token, std::move(body));
  }

  std::string loginToken(const std::string& password) {
    return (*h_->callPublic("POST", "/auth/login", login(ann_.email, password)).data)["token"]
        .asString();
  }

  std::unique_ptr<AccountsHarness> h_;
  User ann_;
};

CPPUNIT_TEST_SUITE_REGISTRATION(ProfileRoutesTest);
