#include "accounts/AuthRoutes.h"

#include "accounts/CompanyStore.h"
#include "accounts/PasswordRules.h"
#include "accounts/TokenJson.h"
#include "accounts/passwords/Rehash.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/validation.h"

namespace rapport::host::accounts {

namespace {

struct Registration {
  std::string name;
  std::string email;  // as given, trimmed
  std::string emailLower;
  std::string password;
  std::string companyName;
};

// Validates the register body; every field message is reported at once,
// the "taken" e-mail included.
Registration readRegistration(const rapport::Request& req, Queryable& db) {
  const Json& body = req.bodyObject();
  Validator v(body);
  auto name = v.string("name", {.required = true, .max = 255});
  auto emailLower = v.email("email", true);
  auto password = readNewPassword(v);
  auto companyName = v.string("company_name", {.required = true, .max = 255});
  if (emailLower.value && users::emailTaken(db, *emailLower.value))
    v.fail("email", users::kEmailTaken);
  v.check();
  // The validator lower-cases e-mails; the user's own spelling is kept for display.
  return {*name.value, rapport::trim(body["email"].asString()), *emailLower.value, *password.value,
          *companyName.value};
}

UserRecord newUser(const Registration& input, std::string passwordHash, std::int64_t now) {
  UserRecord user;
  user.id = rapport::newId("user_");
  user.name = input.name;
  user.email = input.email;
  user.passwordHash = std::move(passwordHash);
  user.createdAt = now;
  user.updatedAt = now;
  return user;
}

}  // namespace

void AuthRoutes::registerOn(rapport::Registry& registry) {
  const RouteOptions publicRoute{.access = Access::Public, .roles = {}};
  registry.route(
      "POST", "/auth/register", [this](const Request& req) { return registerUser(req); },
      publicRoute);
  registry.route(
      "POST", "/auth/login", [this](const Request& req) { return login(req); }, publicRoute);
}

rapport::Response AuthRoutes::registerUser(const rapport::Request& req) {
  const Registration input = readRegistration(req, ctx_.db);
  const std::int64_t now = ctx_.clock();
  const UserRecord user = newUser(input, ctx_.hasher.hash(input.password), now);
  std::string companyId;
  std::optional<IssuedToken> issued;
  try {
    // User, company, ownership and first token commit together or not at all.
    ctx_.db.transaction("", [&](Tx& tx) {
      users::insert(tx, user);
      companyId = companies::createOwned(tx, input.companyName, user.id, now).id;
      issued = ctx_.tokens.issue(tx, user.id, companyId, false);
    });
  } catch (const DbError& e) {
    // A concurrent registration took the e-mail between the check and the insert.
    if (e.isUniqueViolation()) throw rapport::Error::invalidField("email", users::kEmailTaken);
    throw;
  }
  ctx_.log.info("user registered user_id=" + user.id + " company_id=" + companyId);
  Json data = tokenJson(*issued);
  data.set("user", users::tokenUserJson(user, companyId));
  return rapport::Response::created(std::move(data), "Registered.");
}

bool AuthRoutes::passwordMatches(const std::optional<UserRecord>& user,
                                 const std::string& password) {
  if (!user || !user->passwordHash) {
    ctx_.hasher.burn(password);
    return false;
  }
  return ctx_.hasher.verify(password, *user->passwordHash);
}

rapport::Response AuthRoutes::login(const rapport::Request& req) {
  Validator v(req.bodyObject());
  auto email = v.string("email", {.required = true, .max = 255});
  auto password = v.string("password", {.required = true, .max = 1024, .trim = false});
  auto remember = v.boolean("remember_me");
  v.check();
  const std::string emailLower = rapport::toLower(*email.value);
  // Counted as a failure before the password is checked (429 when throttled).
  LoginThrottle::Attempt attempt = ctx_.throttle.begin(emailLower, req.clientAddress);
  const std::optional<UserRecord> user = users::findByEmail(ctx_.db, emailLower);
  if (!passwordMatches(user, *password.value)) {
    throw rapport::Error::unauthorized("Invalid credentials.");
  }
  attempt.succeeded();
  // The operator raised the argon2 cost since this hash was made: store one
  // at today's cost (never fails the login).
  passwords::upgradeHashIfNeeded(ctx_, *user, *password.value);
  // Checked after the password, so the account's state is only revealed to
  // someone who knows it.
  if (user->disabled) throw rapport::Error::forbidden("This account has been disabled.");
  const bool rememberMe = remember.valueOr(false);
  // Two-factor seam (decisions §4): a 2FA account gets a challenge, not a
  // token. Fail closed: without the two-factor part, no token either.
  if (user->twoFactorEnabled) {
    if (!ctx_.secondFactor) {
      ctx_.log.error("login refused: two-factor gate missing user_id=" + user->id);
      throw rapport::Error(503,
                           "Two-factor authentication is unavailable. Please try again later.");
    }
    return ctx_.secondFactor(*user, rememberMe);
  }
  const std::optional<std::string> companyId = companies::firstCompanyOf(ctx_.db, user->id);
  if (!companyId) {
    throw rapport::Error::forbidden("This account does not belong to any company.");
  }
  const IssuedToken issued = ctx_.tokens.issue(user->id, *companyId, rememberMe);
  Json data = tokenJson(issued);
  data.set("user", users::tokenUserJson(*user, *companyId));
  return rapport::Response::ok(std::move(data), "Logged in.");
}

}  // namespace rapport::host::accounts
