#include "accounts/ProfileRoutes.h"

#include "accounts/PasswordRules.h"
#include "rapport/error.h"
#include "rapport/time.h"
#include "rapport/validation.h"

namespace rapport::host::accounts {

namespace {

// {id, name, email, email_verified_at, two_factor_enabled, created_at,
// updated_at}.
Json profileJson(const UserRecord& user) {
  return Json::object(
      {{"id", user.id},
       {"name", user.name},
       {"email", user.email},
       {"email_verified_at",
        user.emailVerifiedAt ? Json(rapport::isoTimestamp(*user.emailVerifiedAt)) : Json()},
       {"two_factor_enabled", user.twoFactorEnabled},
       {"created_at", rapport::isoTimestamp(user.createdAt)},
       {"updated_at", rapport::isoTimestamp(user.updatedAt)}});
}

struct ProfileChange {
  std::optional<std::string> name;
  std::optional<std::string> email;            // as given, trimmed
  std::optional<std::string> currentPassword;  // needed to change the e-mail
};

constexpr const char* kPasswordRequiredForEmail =
    "The current password is required to change the e-mail.";
constexpr const char* kNoPasswordForEmail =
    "This account has no password. Set one with the password reset before changing the "
    "e-mail.";

// Both fields are optional, but one that is sent follows the register rules
// (a null or blank one is refused: neither can be cleared).
ProfileChange readProfileChange(const Json& body, Queryable& db, const std::string& userId) {
  Validator v(body);
  auto name = v.string("name", {.required = v.present("name"), .max = 255});
  auto emailLower = v.email("email", v.present("email"));
  auto currentPassword =
      v.string("current_password", {.required = false, .max = 1024, .trim = false});
  if (emailLower.value && users::emailTakenByOther(db, *emailLower.value, userId)) {
    v.fail("email", users::kEmailTaken);
  }
  v.check();
  ProfileChange change{name.value, std::nullopt, currentPassword.value};
  // The validator lower-cases e-mails; the user's own spelling is kept for display.
  if (emailLower.value) change.email = rapport::trim(body["email"].asString());
  return change;
}

}  // namespace

void ProfileRoutes::registerOn(rapport::Registry& registry) {
  registry.route("GET", "/user/profile", [this](const Request& req) { return show(req); });
  registry.route("PATCH", "/user/profile", [this](const Request& req) { return update(req); });
  registry.route("PATCH", "/user/password",
                 [this](const Request& req) { return changePassword(req); });
}

UserRecord ProfileRoutes::currentUser(const rapport::Request& req) {
  std::optional<UserRecord> user = users::findById(ctx_.db, req.identity.userId);
  if (!user) throw rapport::Error::unauthorized();
  return std::move(*user);
}

rapport::Response ProfileRoutes::show(const rapport::Request& req) {
  return rapport::Response::ok(profileJson(currentUser(req)));
}

rapport::Response ProfileRoutes::update(const rapport::Request& req) {
  const ProfileChange change = readProfileChange(req.bodyObject(), ctx_.db, req.identity.userId);
  UserRecord user = currentUser(req);
  // Nothing sent, nothing written: updated_at keeps meaning "last change".
  if (!change.name && !change.email) return rapport::Response::ok(profileJson(user));
  if (change.email && rapport::toLower(*change.email) != rapport::toLower(user.email)) {
    requirePasswordForEmail(req, user, change.currentPassword);
  }
  if (change.name) user.name = *change.name;
  if (change.email) {
    // Another address is not proved yet (users::updateProfile clears it too).
    if (rapport::toLower(*change.email) != rapport::toLower(user.email))
      user.emailVerifiedAt.reset();
    user.email = *change.email;
  }
  user.updatedAt = ctx_.clock();
  saveProfile(user);
  // Cached identities carry the name and e-mail (GET /auth/me).
  ctx_.tokens.invalidateUser(user.id);
  return rapport::Response::ok(profileJson(user), "Profile updated.");
}

void ProfileRoutes::requirePasswordForEmail(const rapport::Request& req, const UserRecord& user,
                                            const std::optional<std::string>& password) {
  // The e-mail is where password resets go: whoever holds a session must
  // not be able to redirect them without knowing the password.
  if (!user.passwordHash) throw rapport::Error::invalidField("email", kNoPasswordForEmail);
  if (!password || password->empty()) {
    throw rapport::Error::invalidField("current_password", kPasswordRequiredForEmail);
  }
  requireCurrentPassword(req, user, *password);
}

void ProfileRoutes::saveProfile(const UserRecord& user) {
  try {
    users::updateProfile(ctx_.db, user);
  } catch (const DbError& e) {
    // Another user took the e-mail between the check and the write.
    if (e.isUniqueViolation()) throw rapport::Error::invalidField("email", users::kEmailTaken);
    throw;
  }
}

rapport::Response ProfileRoutes::changePassword(const rapport::Request& req) {
  Validator v(req.bodyObject());
  auto current = v.string("current_password", {.required = true, .max = 1024, .trim = false});
  auto password = readNewPassword(v);
  v.check();
  const UserRecord user = currentUser(req);
  requireCurrentPassword(req, user, *current.value);
  const std::string hash = ctx_.hasher.hash(*password.value);
  ctx_.db.transaction("", [&](Tx& tx) {
    users::updatePasswordHash(tx, user.id, hash, ctx_.clock());
    // Whoever else holds a session (perhaps the reason for the change) is out.
    ctx_.tokens.revokeAllForUser(tx, user.id, req.identity.tokenId);
  });
  ctx_.log.info("password changed user_id=" + user.id);
  return rapport::Response::messageOnly("Password changed.");
}

void ProfileRoutes::requireCurrentPassword(const rapport::Request& req, const UserRecord& user,
                                           const std::string& password) {
  const std::string emailLower = rapport::toLower(user.email);
  LoginThrottle::Attempt attempt = ctx_.throttle.begin(emailLower, req.clientAddress);
  // A user without a password (social login) has none to confirm: they set
  // one through the password reset instead.
  if (user.passwordHash && ctx_.hasher.verify(password, *user.passwordHash)) {
    attempt.succeeded();
    return;
  }
  throw rapport::Error::invalidField("current_password", "The current password is incorrect.");
}

}  // namespace rapport::host::accounts
