// POST /auth/2fa/enable, /auth/2fa/confirm, DELETE /auth/2fa and
// POST /auth/2fa/recovery-codes (decisions §4), on both engines.
#include <cppunit/extensions/HelperMacros.h>

#include <set>

#include "TwoFactorFixture.h"
#include "accounts/twofactor/RecoveryCodes.h"

using namespace rapport::test::twofactor;
using rapport::test::accounts::expectError;
using rapport::test::accounts::hasFieldError;

class SetupRoutesTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(SetupRoutesTest);
  CPPUNIT_TEST(testEnableAnswersSecretAndUri);
  CPPUNIT_TEST(testEnableAsksForThePassword);
  CPPUNIT_TEST(testEnableAfterAFreshSignInNeedsNoPassword);
  CPPUNIT_TEST(testEnableWithoutAPasswordNeedsAFreshSignIn);
  CPPUNIT_TEST(testEnableAgainReplacesThePendingSecret);
  CPPUNIT_TEST(testConfirmTurnsItOn);
  CPPUNIT_TEST(testConfirmRefusals);
  CPPUNIT_TEST(testConfirmCodeIsNotReplayable);
  CPPUNIT_TEST(testDisable);
  CPPUNIT_TEST(testRegenerateRecoveryCodes);
  CPPUNIT_TEST(testUserWithoutPasswordConfirmsWithACode);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testEnableAnswersSecretAndUri() {
    TwoFactorFixture f;
    const auto user = f.h.registerUser("ann+2fa@example.com");
    const Response r = f.enable(user.token);
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    const std::string secret = (*r.data)["secret"].asString();
    CPPUNIT_ASSERT_EQUAL(std::size_t{32}, secret.size());
    CPPUNIT_ASSERT_EQUAL("otpauth://totp/Rapport:ann%2B2fa%40example.com?secret=" + secret +
                             "&issuer=Rapport&algorithm=SHA1&digits=6&period=30",
                         (*r.data)["otpauth_uri"].asString());
    // Stored sealed, pending; the user's flag is still off.
    const auto rows = f.h.db->query(
        "SELECT secret_sealed, confirmed_at FROM two_factor_secrets WHERE user_id = ?",
        {user.userId});
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, rows.size());
    const std::string sealed = rows.front().str("secret_sealed");
    CPPUNIT_ASSERT(sealed.find(secret) == std::string::npos);
    CPPUNIT_ASSERT(sealed.rfind("rk1:", 0) == 0);
    CPPUNIT_ASSERT(rows.front().isNull("confirmed_at"));
    const Json me = *f.h.call("GET", "/auth/me", user.token).data;
    CPPUNIT_ASSERT_EQUAL(false, me["two_factor_enabled"].asBool());
  }

  void testEnableAsksForThePassword() {
    // Issue 21: whoever holds a stolen token must not bind the account to
    // their own authenticator (and lock its owner out of it). A sign-in of
    // the last 10 minutes needs no password (decisions §4's enable has no
    // body); an older session must send it.
    TwoFactorFixture f;
    const auto user = f.h.registerUser("pat@example.com");
    f.h.time.advanceSeconds(601);
    const rapport::Error missing =
        expectError([&] { f.h.call("POST", "/auth/2fa/enable", user.token, Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, missing.status());
    CPPUNIT_ASSERT(hasFieldError(missing, "password", ""));
    const rapport::Error wrong = expectError([&] { f.enable(user.token, "not-the-password"); });
    CPPUNIT_ASSERT_EQUAL(422, wrong.status());
    CPPUNIT_ASSERT(hasFieldError(wrong, "password", "The password is incorrect."));
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0}, f.count("SELECT COUNT(*) AS n FROM two_factor_secrets"));
    CPPUNIT_ASSERT_EQUAL(200, f.enable(user.token).status);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, f.count("SELECT COUNT(*) AS n FROM two_factor_secrets"));
    // Wrong passwords count in the login throttle, as for DELETE /auth/2fa.
    for (int i = 0; i < 4; ++i)
      expectError([&] { f.enable(user.token, "guess-" + std::to_string(i)); });
    CPPUNIT_ASSERT_EQUAL(429, expectError([&] { f.enable(user.token, "guess-5"); }).status());
  }

  void testEnableAfterAFreshSignInNeedsNoPassword() {
    TwoFactorFixture f;
    const auto user = f.h.registerUser("ray@example.com");
    f.h.time.advanceSeconds(600);
    CPPUNIT_ASSERT_EQUAL(200, f.h.call("POST", "/auth/2fa/enable", user.token).status);
    // A password sent is checked all the same.
    const rapport::Error wrong = expectError([&] { f.enable(user.token, "not-the-password"); });
    CPPUNIT_ASSERT(hasFieldError(wrong, "password", "The password is incorrect."));
    // A refresh keeps the sign-in's time: past 10 minutes the password is due.
    f.h.time.advanceSeconds(1);
    const auto refreshed = f.h.tokens->refresh(user.token);
    CPPUNIT_ASSERT(refreshed);
    const rapport::Error stale =
        expectError([&] { f.h.call("POST", "/auth/2fa/enable", refreshed->token); });
    CPPUNIT_ASSERT_EQUAL(422, stale.status());
    CPPUNIT_ASSERT(hasFieldError(stale, "password", ""));
  }

  void testEnableWithoutAPasswordNeedsAFreshSignIn() {
    // A social-login user has neither a password nor a code yet: a sign-in
    // of the last 10 minutes is their proof of presence.
    TwoFactorFixture f;
    const auto user = f.h.registerUser("quin@example.com");
    f.h.db->exec("UPDATE users SET password_hash = NULL WHERE id = ?", {user.userId});
    f.h.time.advanceSeconds(600);
    CPPUNIT_ASSERT_EQUAL(200, f.h.call("POST", "/auth/2fa/enable", user.token).status);
    f.h.time.advanceSeconds(1);
    const rapport::Error stale =
        expectError([&] { f.h.call("POST", "/auth/2fa/enable", user.token); });
    CPPUNIT_ASSERT_EQUAL(403, stale.status());
    CPPUNIT_ASSERT(std::string(stale.what()).find("Sign in again") != std::string::npos);
    // A refresh does not make the session fresh: it is the same sign-in.
    const auto refreshed = f.h.tokens->refresh(user.token);
    CPPUNIT_ASSERT(refreshed);
    CPPUNIT_ASSERT_EQUAL(
        403, expectError([&] { f.h.call("POST", "/auth/2fa/enable", refreshed->token); }).status());
    // A new sign-in does.
    const std::string fresh = f.h.tokenFor(user, user.companyId);
    CPPUNIT_ASSERT_EQUAL(200, f.h.call("POST", "/auth/2fa/enable", fresh).status);
  }

  void testEnableAgainReplacesThePendingSecret() {
    TwoFactorFixture f;
    const auto user = f.h.registerUser("bob@example.com");
    const std::string first = (*f.enable(user.token).data)["secret"].asString();
    const std::string second = (*f.enable(user.token).data)["secret"].asString();
    CPPUNIT_ASSERT(first != second);
    CPPUNIT_ASSERT_EQUAL(std::int64_t{1}, f.count("SELECT COUNT(*) AS n FROM two_factor_secrets"));
    // The first secret's code no longer confirms; the second's does.
    const rapport::Error e = expectError([&] {
      f.h.call("POST", "/auth/2fa/confirm", user.token, Json::object({{"code", f.code(first)}}));
    });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "code", "The two-factor code is invalid."));
    const Response ok =
        f.h.call("POST", "/auth/2fa/confirm", user.token, Json::object({{"code", f.code(second)}}));
    CPPUNIT_ASSERT_EQUAL(200, ok.status);
  }

  void testConfirmTurnsItOn() {
    TwoFactorFixture f;
    const auto user = f.h.registerUser("cy@example.com");
    const std::string other = f.h.tokenFor(user, user.companyId);
    const std::string secret = (*f.enable(user.token).data)["secret"].asString();
    // Spaces inside the code, as authenticator apps show it, are fine.
    std::string spaced = f.code(secret);
    spaced.insert(3, " ");
    const Response r =
        f.h.call("POST", "/auth/2fa/confirm", user.token, Json::object({{"code", spaced}}));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    const Json::Array& codes = (*r.data)["recovery_codes"].asArray();
    CPPUNIT_ASSERT_EQUAL(std::size_t{8}, codes.size());
    std::set<std::string> hashes;
    for (const Json& c : codes) {
      hashes.insert(rapport::host::accounts::twofactor::recoveryCodeHash(
          user.userId, *rapport::host::accounts::twofactor::normaliseRecoveryCode(c.asString())));
    }
    // Stored hashed: the hashes, never the codes.
    const auto rows = f.h.db->query(
        "SELECT code_hash FROM two_factor_recovery_codes WHERE user_id = ?", {user.userId});
    CPPUNIT_ASSERT_EQUAL(std::size_t{8}, rows.size());
    for (const auto& row : rows) CPPUNIT_ASSERT(hashes.count(row.str("code_hash")) == 1);
    // GET /auth/me and the profile show it at once (the cache was invalidated).
    CPPUNIT_ASSERT_EQUAL(
        true, (*f.h.call("GET", "/auth/me", user.token).data)["two_factor_enabled"].asBool());
    CPPUNIT_ASSERT_EQUAL(
        true, (*f.h.call("GET", "/user/profile", user.token).data)["two_factor_enabled"].asBool());
    // Sessions opened with the password alone end; the caller's stays.
    CPPUNIT_ASSERT_EQUAL(401, expectError([&] { f.h.identityOf(other); }).status());
    // Already on: 409 for enable and confirm.
    const rapport::Error again = expectError([&] { f.enable(user.token); });
    CPPUNIT_ASSERT_EQUAL(409, again.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Two-factor authentication is already enabled."),
                         std::string(again.what()));
    CPPUNIT_ASSERT_EQUAL(409, expectError([&] {
                                f.h.call("POST", "/auth/2fa/confirm", user.token,
                                         Json::object({{"code", f.nextCode(secret)}}));
                              }).status());
  }

  void testConfirmRefusals() {
    TwoFactorFixture f;
    const auto user = f.h.registerUser("dee@example.com");
    // Nothing pending: 409.
    const rapport::Error none = expectError([&] {
      f.h.call("POST", "/auth/2fa/confirm", user.token, Json::object({{"code", "123456"}}));
    });
    CPPUNIT_ASSERT_EQUAL(409, none.status());
    const std::string secret = (*f.enable(user.token).data)["secret"].asString();
    // Missing code: 422.
    const rapport::Error missing =
        expectError([&] { f.h.call("POST", "/auth/2fa/confirm", user.token, Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, missing.status());
    CPPUNIT_ASSERT(hasFieldError(missing, "code", ""));
    // A code two steps away, or a wrong one: 422 on code, still off.
    for (const std::string& wrong : {oathCode(secret, f.unixNow() + 60),
                                     oathCode(secret, f.unixNow() - 60), std::string("abcdef")}) {
      const rapport::Error e = expectError([&] {
        f.h.call("POST", "/auth/2fa/confirm", user.token, Json::object({{"code", wrong}}));
      });
      CPPUNIT_ASSERT_EQUAL(422, e.status());
      CPPUNIT_ASSERT(hasFieldError(e, "code", "The two-factor code is invalid."));
    }
    CPPUNIT_ASSERT_EQUAL(
        false, (*f.h.call("GET", "/auth/me", user.token).data)["two_factor_enabled"].asBool());
    CPPUNIT_ASSERT_EQUAL(std::int64_t{0},
                         f.count("SELECT COUNT(*) AS n FROM two_factor_recovery_codes"));
  }

  void testConfirmCodeIsNotReplayable() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("eve@example.com");
    // The code that confirmed, at the same moment: refused at login.
    const std::string challenge = f.challenge(u.user.email);
    const rapport::Error e = expectError([&] { f.complete(challenge, f.code(u.secret)); });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "code", "The two-factor code is invalid."));
    // The previous step's code is within drift but older than the accepted one.
    const rapport::Error older =
        expectError([&] { f.complete(challenge, oathCode(u.secret, f.unixNow() - 30)); });
    CPPUNIT_ASSERT_EQUAL(422, older.status());
    CPPUNIT_ASSERT_EQUAL(200, f.complete(challenge, f.nextCode(u.secret)).status);
  }

  void testDisable() {
    TwoFactorFixture f;
    const auto plain = f.h.registerUser("fay@example.com");
    const rapport::Error off = expectError([&] {
      f.h.call("DELETE", "/auth/2fa", plain.token, Json::object({{"password", kPassword}}));
    });
    CPPUNIT_ASSERT_EQUAL(409, off.status());
    CPPUNIT_ASSERT_EQUAL(std::string("Two-factor authentication is not enabled."),
                         std::string(off.what()));

    const TwoFactorUser u = f.enabledUser("gus@example.com");
    const rapport::Error wrong = expectError([&] {
      f.h.call("DELETE", "/auth/2fa", u.user.token,
               Json::object({{"password", "not-the-password"}}));
    });
    CPPUNIT_ASSERT_EQUAL(422, wrong.status());
    CPPUNIT_ASSERT(hasFieldError(wrong, "password", "The password is incorrect."));
    const rapport::Error missing =
        expectError([&] { f.h.call("DELETE", "/auth/2fa", u.user.token, Json::object()); });
    CPPUNIT_ASSERT_EQUAL(422, missing.status());
    CPPUNIT_ASSERT(hasFieldError(missing, "password", ""));
    CPPUNIT_ASSERT_EQUAL(
        true, (*f.h.call("GET", "/auth/me", u.user.token).data)["two_factor_enabled"].asBool());

    const Response r =
        f.h.call("DELETE", "/auth/2fa", u.user.token, Json::object({{"password", kPassword}}));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    CPPUNIT_ASSERT_EQUAL(
        false, (*f.h.call("GET", "/auth/me", u.user.token).data)["two_factor_enabled"].asBool());
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{0},
        f.count("SELECT COUNT(*) AS n FROM two_factor_secrets WHERE user_id = ?", {u.user.userId}));
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{0},
        f.count("SELECT COUNT(*) AS n FROM two_factor_recovery_codes WHERE user_id = ?",
                {u.user.userId}));
    // Login gives a token again.
    const Response login = f.login(u.user.email);
    CPPUNIT_ASSERT_EQUAL(200, login.status);
    CPPUNIT_ASSERT((*login.data)["token"].isString());
    // And 2FA can be set up anew.
    CPPUNIT_ASSERT_EQUAL(200, f.enable(u.user.token).status);
  }

  void testRegenerateRecoveryCodes() {
    TwoFactorFixture f;
    const auto plain = f.h.registerUser("hal@example.com");
    CPPUNIT_ASSERT_EQUAL(409, expectError([&] {
                                f.h.call("POST", "/auth/2fa/recovery-codes", plain.token,
                                         Json::object({{"password", kPassword}}));
                              }).status());
    const TwoFactorUser u = f.enabledUser("ida@example.com");
    const rapport::Error wrong = expectError([&] {
      f.h.call("POST", "/auth/2fa/recovery-codes", u.user.token,
               Json::object({{"password", "nope-nope-nope"}}));
    });
    CPPUNIT_ASSERT_EQUAL(422, wrong.status());
    CPPUNIT_ASSERT(hasFieldError(wrong, "password", "The password is incorrect."));
    const Response r = f.h.call("POST", "/auth/2fa/recovery-codes", u.user.token,
                                Json::object({{"password", kPassword}}));
    CPPUNIT_ASSERT_EQUAL(200, r.status);
    const Json::Array& fresh = (*r.data)["recovery_codes"].asArray();
    CPPUNIT_ASSERT_EQUAL(std::size_t{8}, fresh.size());
    for (const Json& c : fresh) {
      for (const std::string& old : u.recoveryCodes) CPPUNIT_ASSERT(c.asString() != old);
    }
    CPPUNIT_ASSERT_EQUAL(
        std::int64_t{8},
        f.count("SELECT COUNT(*) AS n FROM two_factor_recovery_codes WHERE user_id = ?",
                {u.user.userId}));
    // An old code is dead; a new one works.
    const std::string challenge = f.challenge(u.user.email);
    const rapport::Error dead =
        expectError([&] { f.completeWithRecovery(challenge, u.recoveryCodes[0]); });
    CPPUNIT_ASSERT_EQUAL(422, dead.status());
    CPPUNIT_ASSERT(hasFieldError(dead, "recovery_code", "The recovery code is invalid."));
    CPPUNIT_ASSERT_EQUAL(200, f.completeWithRecovery(challenge, fresh[3].asString()).status);
  }

  void testUserWithoutPasswordConfirmsWithACode() {
    TwoFactorFixture f;
    const TwoFactorUser u = f.enabledUser("jo@example.com");
    f.h.db->exec("UPDATE users SET password_hash = NULL WHERE id = ?", {u.user.userId});
    // The password is not what is asked: 422 on code.
    const rapport::Error e = expectError([&] {
      f.h.call("POST", "/auth/2fa/recovery-codes", u.user.token,
               Json::object({{"password", kPassword}}));
    });
    CPPUNIT_ASSERT_EQUAL(422, e.status());
    CPPUNIT_ASSERT(hasFieldError(e, "code", ""));
    // A replayed code is refused, a fresh one or a recovery code accepted.
    const rapport::Error replay = expectError([&] {
      f.h.call("POST", "/auth/2fa/recovery-codes", u.user.token,
               Json::object({{"code", f.code(u.secret)}}));
    });
    CPPUNIT_ASSERT_EQUAL(422, replay.status());
    const Response regenerated = f.h.call("POST", "/auth/2fa/recovery-codes", u.user.token,
                                          Json::object({{"code", f.nextCode(u.secret)}}));
    CPPUNIT_ASSERT_EQUAL(200, regenerated.status);
    const std::string recovery = (*regenerated.data)["recovery_codes"].asArray()[0].asString();
    CPPUNIT_ASSERT_EQUAL(
        200,
        f.h.call("DELETE", "/auth/2fa", u.user.token, Json::object({{"code", recovery}})).status);
    CPPUNIT_ASSERT_EQUAL(
        false, (*f.h.call("GET", "/auth/me", u.user.token).data)["two_factor_enabled"].asBool());
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(SetupRoutesTest);
