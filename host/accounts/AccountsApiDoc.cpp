#include "accounts/AccountsApiDoc.h"

#include <string>
#include <utility>
#include <vector>

#include "rapport/api_doc.h"

namespace rapport::host::accounts {

namespace {

namespace schema = rapport::schema;

const char* const kAuth = "auth";
const char* const kTwoFactor = "two-factor";
const char* const kSocial = "social login";
const char* const kUser = "user";
const char* const kMembers = "company members";

Json role() {
  return schema::enumOf({"owner", "admin", "member"});
}

// Fields the register, login, two-factor and social answers share (TokenJson.cpp).
schema::Properties tokenProperties() {
  return {{"token", schema::string("The bearer token.")},
          {"token_type", schema::enumOf({"Bearer"})},
          {"expires_in", schema::integer("Seconds until the token expires.")},
          {"expires_at", schema::timestamp()}};
}

const std::vector<std::string> kTokenRequired = {"token", "token_type", "expires_in", "expires_at"};

// The token, then `extra`, all required.
Json tokenWith(schema::Properties extra) {
  schema::Properties properties = tokenProperties();
  std::vector<std::string> required = kTokenRequired;
  for (auto& [name, value] : extra) {
    required.push_back(name);
    properties.emplace_back(name, std::move(value));
  }
  return schema::object(std::move(properties), std::move(required));
}

// users::tokenUserJson: the signed-in user and the company the token acts for.
Json tokenUser() {
  return schema::object({{"id", schema::id("user_")},
                         {"name", schema::string()},
                         {"email", schema::email()},
                         {"company_id", schema::id("comp_")}},
                        {"id", "name", "email", "company_id"});
}

// ChallengeRoutes::start: a two-factor account's login answer (no token yet).
Json twoFactorChallenge() {
  return schema::object(
      {{"two_factor_required", schema::boolean("Always true.")},
       {"pending_2fa", schema::boolean("Always true.")},
       {"challenge_id", schema::id("tfa_", "Answer it at POST /v1/auth/two-factor/challenge.")},
       {"two_factor_token", schema::id("tfa_", "The same value as challenge_id.")}},
      {"two_factor_required", "pending_2fa", "challenge_id", "two_factor_token"});
}

// companyJson (CompanyRoutes.cpp): a company as one of its members sees it.
schema::Properties userCompanyProperties() {
  return {{"id", schema::id("comp_")},
          {"name", schema::string()},
          {"role", role()},
          {"created_at", schema::timestamp("When the company was created.")},
          {"joined_at", schema::timestamp("When the caller became a member.")}};
}

const std::vector<std::string> kUserCompanyRequired = {"id", "name", "role", "created_at",
                                                       "joined_at"};

Json emailVerifiedAt() {
  return schema::nullable(schema::timestamp(
      "When the user proved the address (a verification link, a password reset by e-mail, or a "
      "sign-up through a provider that verified it); null until then and after a change."));
}

void registerSchemas(rapport::Registry& registry) {
  registry.schema("AccessToken", schema::object(tokenProperties(), kTokenRequired));
  registry.schema("SignedIn", tokenWith({{"user", tokenUser()}}));
  registry.schema("TwoFactorChallenge", twoFactorChallenge());
  registry.schema("Profile", schema::object({{"id", schema::id("user_")},
                                             {"name", schema::string()},
                                             {"email", schema::email()},
                                             {"email_verified_at", emailVerifiedAt()},
                                             {"two_factor_enabled", schema::boolean()},
                                             {"created_at", schema::timestamp()},
                                             {"updated_at", schema::timestamp()}},
                                            {"id", "name", "email", "email_verified_at",
                                             "two_factor_enabled", "created_at", "updated_at"}));
  registry.schema("LinkedIdentity",
                  schema::object({{"provider", schema::enumOf({"google", "github", "microsoft"})},
                                  {"email", schema::nullable(schema::email(
                                                "The provider's address at the last sign-in."))},
                                  {"created_at", schema::timestamp("When it was linked.")},
                                  {"last_login_at", schema::timestamp()}},
                                 {"provider", "email", "created_at", "last_login_at"}));
  registry.schema("UserCompany", schema::object(userCompanyProperties(), kUserCompanyRequired));
  registry.schema("Member", schema::object({{"user_id", schema::id("user_")},
                                            {"name", schema::string()},
                                            {"email", schema::email()},
                                            {"role", role()},
                                            {"joined_at", schema::timestamp()}},
                                           {"user_id", "name", "email", "role", "joined_at"}));
}

// A sign-in's success: a token, or the two-factor challenge when the
// account has two-factor on and auth.two_factor_status is 200 (decisions §4).
Json signedInOrChallenge() {
  return Json::object(
      {{"anyOf", Json(Json::Array{schema::ref("SignedIn"), schema::ref("TwoFactorChallenge")})}});
}

const char* const kTwoFactorLogin =
    "An account with two-factor on gets the `TwoFactorChallenge` instead of a token: with "
    "status 403 by default, or 200 when `auth.two_factor_status` is 200.";

Json newPasswordBody(schema::Properties properties, std::vector<std::string> required) {
  properties.emplace_back("password", schema::string("8 to 128 characters, not a common one.")
                                          .set("minLength", 8)
                                          .set("maxLength", 128));
  properties.emplace_back("password_confirmation", schema::string("The same password again."));
  required.insert(required.end(), {"password", "password_confirmation"});
  return schema::object(std::move(properties), std::move(required));
}

void describeAuth(rapport::Registry& registry) {
  registry.describe(
      "POST", "/auth/register",
      {.summary = "Register a user and their first company",
       .description = "Creates the user, a company they own and a first token, together.",
       .tag = kAuth,
       .body = newPasswordBody({{"name", schema::text(255)},
                                {"email", schema::email("Not registered already.")},
                                {"company_name", schema::text(255)}},
                               {"name", "email", "company_name"}),
       .status = 201,
       .data = schema::ref("SignedIn")});
  registry.describe(
      "POST", "/auth/login",
      {.summary = "Log in with an e-mail and a password",
       .description = std::string("Failed attempts are throttled per e-mail and client (429). ") +
                      kTwoFactorLogin,
       .tag = kAuth,
       .body = schema::object({{"email", schema::text(255)},
                               {"password", schema::text(1024)},
                               {"remember_me", schema::boolean("A longer-lived token.")}},
                              {"email", "password"}),
       .data = signedInOrChallenge(),
       .errors = {401, 403}});
  registry.describe(
      "POST", "/auth/refresh",
      {.summary = "Exchange the bearer token for a new one",
       .description = "Send the current token as `Authorization: Bearer`. The old token keeps "
                      "working for a short grace; refreshing it again after that revokes its "
                      "whole family.",
       .tag = kAuth,
       .data = schema::ref("AccessToken"),
       .errors = {401}});
  // Public in the router (SessionRoutes: the handler reads the token), but
  // a client must send it: the document requires the bearer token.
  registry.describeExtra("POST", "/auth/refresh", {.readsBearerToken = true});
  registry.describe("POST", "/auth/logout", {.summary = "Revoke the current token", .tag = kAuth});
  const Json user =
      schema::object({{"id", schema::id("user_")},
                      {"name", schema::string()},
                      {"email", schema::email()},
                      {"company_id", schema::id("comp_")},
                      {"two_factor_enabled", schema::boolean()},
                      {"created_at", schema::timestamp()}},
                     {"id", "name", "email", "company_id", "two_factor_enabled", "created_at"});
  const Json key = schema::object({{"type", schema::enumOf({"api_key"})},
                                   {"id", schema::id("key_")},
                                   {"name", schema::string()},
                                   {"scopes", schema::arrayOf(schema::string())},
                                   {"company_id", schema::id("comp_")}},
                                  {"type", "id", "name", "scopes", "company_id"});
  registry.describe(
      "GET", "/auth/me",
      {.summary = "Get the current user (or API key) and the company the token acts for",
       .description = "With an API key: the key, {type: \"api_key\", id, name, scopes, "
                      "company_id}.",
       .tag = kAuth,
       .data = schema::anyOf({user, key})});
  registry.describe(
      "POST", "/auth/context",
      {.summary = "Get a token for another of the caller's companies",
       .description = "The current token stays valid for its own company. The token's own "
                      "company: 422 on `company_id`. A token that was refreshed already is "
                      "reuse: every token of its login is revoked (401).",
       .tag = kAuth,
       .body = schema::object({{"company_id", schema::id("comp_")}}, {"company_id"}),
       .data = tokenWith({{"company", schema::object({{"id", schema::id("comp_")},
                                                      {"name", schema::string()},
                                                      {"role", role()}},
                                                     {"id", "name", "role"})},
                          {"company_id", schema::id("comp_")}}),
       .errors = {403, 404}});
}

void describeReset(rapport::Registry& registry) {
  registry.describe(
      "POST", "/auth/forgot-password",
      {.summary = "E-mail a password reset link",
       .description = "Answers the same whether or not the address is registered. Limited per "
                      "client (429).",
       .tag = kAuth,
       .body = schema::object({{"email", schema::email()}}, {"email"})});
  registry.describe(
      "POST", "/auth/reset-password",
      {.summary = "Set a new password with a reset token",
       .description = "Wrong tokens are limited per client (429). Success also marks the "
                      "address verified; with `remove_identities` it unlinks every social "
                      "login identity of the account (the reset e-mail names them).",
       .tag = kAuth,
       .body = newPasswordBody(
           {{"token", schema::text(255, "From the reset e-mail.")},
            {"email", schema::email()},
            {"remove_identities",
             schema::boolean("Unlink every social login identity too (default false).")}},
           {"token", "email"})});
}

void describeVerification(rapport::Registry& registry) {
  registry.describe(
      "POST", "/auth/email/verification",
      {.summary = "E-mail a verification link for the current address",
       .description = "A single-use token valid `auth.email_verification_ttl` seconds (24 hours "
                      "by default). Limited per user and per client (429); 409 when the "
                      "address is verified already.",
       .tag = kUser,
       .errors = {409}});
  registry.describe(
      "POST", "/auth/email/verify",
      {.summary = "Verify the e-mail address with the mailed token",
       .description = "A wrong, used or expired token is 422 on `token`; wrong tokens are "
                      "limited per client (429).",
       .tag = kAuth,
       .body = schema::object({{"token", schema::text(255, "From the verification e-mail.")}},
                              {"token"})});
}

void describeIdentities(rapport::Registry& registry) {
  registry.describe("GET", "/user/identities",
                    {.summary = "List the social login identities linked to the current user",
                     .tag = kUser,
                     .data = schema::arrayOf(schema::ref("LinkedIdentity"))});
  registry.describe(
      "DELETE", "/user/identities/{provider}",
      {.summary = "Unlink a provider's social login identity from the current user",
       .description = "404 when none is linked; 409 when it is the only way to sign in to an "
                      "account without a password (set one with the password reset first).",
       .tag = kUser,
       .errors = {409}});
}

void describeProfile(rapport::Registry& registry) {
  registry.describe(
      "GET", "/user/profile",
      {.summary = "Get the current user's profile", .tag = kUser, .data = schema::ref("Profile")});
  registry.describe("PATCH", "/user/profile",
                    {.summary = "Update the current user's name or e-mail",
                     .description = "Changing the e-mail needs `current_password`.",
                     .tag = kUser,
                     .body = schema::object({{"name", schema::text(255)},
                                             {"email", schema::email()},
                                             {"current_password", schema::string()}}),
                     .data = schema::ref("Profile")});
  registry.describe(
      "PATCH", "/user/password",
      {.summary = "Change the current user's password",
       .description = "Revokes the user's other tokens.",
       .tag = kUser,
       .body = newPasswordBody({{"current_password", schema::text(1024)}}, {"current_password"})});
}

void describeCompanies(rapport::Registry& registry) {
  registry.describe("GET", "/user/companies",
                    {.summary = "List the companies the current user belongs to",
                     .tag = kUser,
                     .query = schema::pageQuery({"name", "created_at", "joined_at"}, "-joined_at"),
                     .data = schema::arrayOf(schema::ref("UserCompany")),
                     .paged = true});
  registry.describe("POST", "/user/companies",
                    {.summary = "Create a company owned by the current user",
                     .tag = kUser,
                     .body = schema::object({{"name", schema::text(255)}}, {"name"}),
                     .status = 201,
                     .data = schema::ref("UserCompany")});
  schema::Properties detail = userCompanyProperties();
  detail.emplace_back("members_count", schema::integer());
  std::vector<std::string> required = kUserCompanyRequired;
  required.push_back("members_count");
  registry.describe("GET", "/user/companies/{id}",
                    {.summary = "Get one of the current user's companies",
                     .tag = kUser,
                     .data = schema::object(std::move(detail), std::move(required))});
}

void describeMembers(rapport::Registry& registry) {
  registry.describe("GET", "/company/members",
                    {.summary = "List the members of the token's company",
                     .tag = kMembers,
                     .query = schema::pageQuery({"joined_at", "name", "email"}, "joined_at"),
                     .data = schema::arrayOf(schema::ref("Member")),
                     .paged = true});
  registry.describe(
      "POST", "/company/members",
      {.summary = "Add a registered user to the token's company",
       .description = "Owners and admins; only an owner adds an owner.",
       .tag = kMembers,
       .body = schema::object({{"email", schema::email()}, {"role", role()}}, {"email", "role"}),
       .status = 201,
       .data = schema::ref("Member"),
       .errors = {404, 409}});
  registry.describe("PATCH", "/company/members/{user_id}",
                    {.summary = "Change a member's role",
                     .description = "Owners only. The company keeps at least one owner (409).",
                     .tag = kMembers,
                     .body = schema::object({{"role", role()}}, {"role"}),
                     .data = schema::ref("Member"),
                     .errors = {409}});
  registry.describe("DELETE", "/company/members/{user_id}",
                    {.summary = "Remove a member from the token's company",
                     .description = "Owners and admins; only an owner removes an owner. The "
                                    "company keeps at least one owner (409). Revokes the "
                                    "member's tokens for this company.",
                     .tag = kMembers,
                     .errors = {409}});
}

Json codeOrPasswordBody() {
  return schema::object(
      {{"password", schema::text(1024, "Required when the account has a password.")},
       {"code", schema::text(64,
                             "A current or recovery code, for an account without a "
                             "password (social login).")}});
}

Json recoveryCodes() {
  return schema::object(
      {{"recovery_codes", schema::arrayOf(schema::string(), "Shown once; each works once.")}},
      {"recovery_codes"});
}

void describeTwoFactorSetup(rapport::Registry& registry) {
  registry.describe(
      "POST", "/auth/2fa/enable",
      {.summary = "Start enabling two-factor authentication",
       .description =
           "Gives a new TOTP secret to add to an authenticator app, then confirm. A sign-in of "
           "the last 10 minutes needs no body (a refresh or a company switch keeps the "
           "sign-in's time); an older session must send the password (missing or wrong: 422 on "
           "`password`), and a password sent is always checked. An account without a password "
           "(social login) sends none: an older session answers 403 and the user signs in "
           "again.",
       .tag = kTwoFactor,
       .body = schema::object(
           {{"password", schema::text(1024,
                                      "Required when the sign-in is more than 10 minutes "
                                      "old and the account has a password.")}}),
       .data =
           schema::object({{"secret", schema::string("Base32.")}, {"otpauth_uri", schema::url()}},
                          {"secret", "otpauth_uri"}),
       .errors = {403, 409}});
  registry.describe("POST", "/auth/2fa/confirm",
                    {.summary = "Confirm two-factor authentication with a first code",
                     .description = "Revokes the user's other tokens.",
                     .tag = kTwoFactor,
                     .body = schema::object({{"code", schema::text(64)}}, {"code"}),
                     .data = recoveryCodes(),
                     .errors = {409}});
  registry.describe("DELETE", "/auth/2fa",
                    {.summary = "Disable two-factor authentication",
                     .tag = kTwoFactor,
                     .body = codeOrPasswordBody(),
                     .errors = {409}});
  registry.describe("POST", "/auth/2fa/recovery-codes",
                    {.summary = "Replace the recovery codes",
                     .tag = kTwoFactor,
                     .body = codeOrPasswordBody(),
                     .data = recoveryCodes(),
                     .errors = {409}});
}

void describeTwoFactorChallenge(rapport::Registry& registry) {
  const char* const answered = "Wrong codes are counted; too many end the challenge (429).";
  const Json code = schema::text(
      64,
      "A TOTP code, or the e-mailed one (refused, 422, for 24 hours after a password reset by "
      "e-mail; a sign-in with it mails the user a notice).");
  const Json recovery = schema::text(64, "Instead of `code`.");
  const Json token = schema::text(255, "The challenge_id of the login answer.");
  registry.describe("POST", "/auth/two-factor/challenge",
                    {.summary = "Complete a two-factor login",
                     .description = answered,
                     .tag = kTwoFactor,
                     .body = schema::object(
                         {{"challenge_id", token}, {"code", code}, {"recovery_code", recovery}},
                         {"challenge_id"}),
                     .data = schema::ref("SignedIn"),
                     .errors = {403, 404}});
  registry.describe("POST", "/auth/two-factor/verify",
                    {.summary = "Complete a two-factor login with a code",
                     .description = answered,
                     .tag = kTwoFactor,
                     .body = schema::object({{"two_factor_token", token}, {"code", code}},
                                            {"two_factor_token", "code"}),
                     .data = schema::ref("SignedIn"),
                     .errors = {403, 404}});
  registry.describe(
      "POST", "/auth/2fa/challenge",
      {.summary = "Complete a two-factor login (either field name)",
       .description = std::string("`two_factor_token` or `challenge_id`. ") + answered,
       .tag = kTwoFactor,
       .body = schema::object({{"two_factor_token", token},
                               {"challenge_id", token},
                               {"code", code},
                               {"recovery_code", recovery}}),
       .data = schema::ref("SignedIn"),
       .errors = {403, 404}});
  registry.describe("POST", "/auth/two-factor/resend",
                    {.summary = "E-mail a one-time code for a two-factor login",
                     .description = "At most one per interval per challenge (429).",
                     .tag = kTwoFactor,
                     .body = schema::object({{"two_factor_token", token}}, {"two_factor_token"}),
                     .errors = {403, 404}});
}

const char* const kSocialWho =
    "Signs in the linked identity; links a provider-verified e-mail to the account that "
    "verified the same address (409 when either side has not verified it); creates the user "
    "and a company for a provider-verified address nobody has (422 for an unverified one). ";
const char* const kStateBinding =
    "The state must come back from the client that asked for it: with the binding cookie of "
    "the redirect answer, or without cookies from the same client address (else 422 on "
    "`state`). ";

void describeSocial(rapport::Registry& registry) {
  const Json codeAndState =
      schema::object({{"code", schema::text(2048, "From the provider's redirect.")},
                      {"state", schema::text(512, "From the provider's redirect.")}},
                     {"code", "state"});
  registry.describe(
      "GET", "/auth/social/{provider}/redirect",
      {.summary = "Start a social login",
       .description = "Gives the provider's authorization URL (PKCE). `redirect_uri` must be in "
                      "`social.redirect_allowlist`; without it, the first one listed. Sets the "
                      "cookie `rapport_social_binding` (HttpOnly, SameSite=Lax, Path "
                      "/v1/auth/social) that binds the state to this client.",
       .tag = kSocial,
       .query = schema::object({{"redirect_uri", schema::url()}}),
       .data = schema::object({{"authorization_url", schema::url()},
                               {"redirect_url", schema::url("The same URL.")},
                               {"state", schema::string()}},
                              {"authorization_url", "redirect_url", "state"})});
  registry.describe("POST", "/auth/social/{provider}/callback",
                    {.summary = "Finish a social login with the provider's code",
                     .description = std::string(kSocialWho) + kStateBinding + kTwoFactorLogin,
                     .tag = kSocial,
                     .body = codeAndState,
                     .data = signedInOrChallenge(),
                     .errors = {401, 403, 409, 422, 502}});
  registry.describe(
      "GET", "/auth/social/{provider}/callback",
      {.summary = "Finish a social login in the browser",
       .description = std::string("The provider's redirect target: answers a short-lived "
                                  "exchange code for POST /v1/auth/social/exchange. ") +
                      kSocialWho + kStateBinding,
       .tag = kSocial,
       .query = schema::object({{"code", schema::string()},
                                {"state", schema::string()},
                                {"error", schema::string("Set by the provider when refused.")}}),
       .data = schema::object({{"exchange_code", schema::string()}}, {"exchange_code"}),
       .errors = {401, 409, 422, 502}});
  registry.describe(
      "POST", "/auth/social/exchange",
      {.summary = "Exchange a social login's exchange code for a token",
       .description = kTwoFactorLogin,
       .tag = kSocial,
       .body = schema::object({{"exchange_code", schema::text(512)}}, {"exchange_code"}),
       .data = signedInOrChallenge(),
       .errors = {403}});
}

}  // namespace

void describeAccountsRoutes(rapport::Registry& registry) {
  registerSchemas(registry);
  describeAuth(registry);
  describeReset(registry);
  describeVerification(registry);
  describeProfile(registry);
  describeIdentities(registry);
  describeCompanies(registry);
  describeMembers(registry);
  describeTwoFactorSetup(registry);
  describeTwoFactorChallenge(registry);
  describeSocial(registry);
}

}  // namespace rapport::host::accounts
