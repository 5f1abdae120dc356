#include "accounts/social/SocialRoutes.h"

#include "accounts/CompanyStore.h"
#include "accounts/TokenJson.h"
#include "accounts/social/FormEncoding.h"
#include "accounts/social/Pkce.h"
#include "accounts/social/SocialStore.h"
#include "accounts/social/StateBinding.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/validation.h"

namespace rapport::host::accounts::social {

namespace {

constexpr std::size_t kSecretBytes = 32;  // states and exchange codes: 256 bits
constexpr const char* kProviderFailed = "Authentication with provider failed.";
constexpr const char* kBadState = "The state is invalid or has expired.";
constexpr const char* kBadExchangeCode = "The exchange code is invalid or has expired.";
constexpr const char* kProviderUnverified =
    "An account with this e-mail address already exists and the identity provider has not "
    "verified the address. Sign in with your password instead.";
// Decisions §5, hardened (issue 21): a provider's verified address links
// only to an account that proved the address itself.
constexpr const char* kAccountUnverified =
    "An account with this e-mail address already exists, but its e-mail address has not been "
    "verified, so it cannot be linked to this sign-in. Sign in with your password and verify "
    "your e-mail address, or reset your password; then sign in with this provider again.";
constexpr const char* kNewUnverified =
    "The identity provider has not verified this e-mail address, so no account can be created "
    "from it. Verify the address with the provider, or register with a password.";

std::string sealContext(const std::string& stateHash) {
  return "social-state:" + stateHash;
}

// The company a new social user starts with.
std::string companyNameFor(const std::string& name) {
  std::string company = name + "'s company";
  return rapport::utf8Length(company) <= 255 ? company : std::string("My company");
}

// The query of GET .../callback as a body, so the Validator reads it.
Json queryAsBody(const rapport::Request& req, std::initializer_list<const char*> keys) {
  Json body = Json::object();
  for (const char* key : keys) {
    if (auto value = req.queryParam(key)) body.set(key, *value);
  }
  return body;
}

struct CodeAndState {
  std::string code;
  std::string state;
};

CodeAndState readCodeAndState(const Json& body) {
  Validator v(body);
  auto code = v.string("code", {.required = true, .max = 2048});
  auto state = v.string("state", {.required = true, .max = 512});
  v.check();
  return {*code.value, *state.value};
}

}  // namespace

SocialRoutes::SocialRoutes(AccountsContext& context, SocialOptions options,
                           const rapport::SecretBox& secrets)
    : ctx_(context),
      options_(std::move(options)),
      secrets_(secrets),
      client_(options_.caFile, std::chrono::seconds(options_.timeoutSeconds)) {}

void SocialRoutes::registerOn(rapport::Registry& registry) {
  const RouteOptions publicRoute{.access = Access::Public, .roles = {}};
  registry.route(
      "GET", "/auth/social/{provider}/redirect",
      [this](const Request& req) { return redirect(req); }, publicRoute);
  registry.route(
      "POST", "/auth/social/{provider}/callback",
      [this](const Request& req) { return callback(req); }, publicRoute);
  registry.route(
      "GET", "/auth/social/{provider}/callback",
      [this](const Request& req) { return callbackGet(req); }, publicRoute);
  registry.route(
      "POST", "/auth/social/exchange", [this](const Request& req) { return exchange(req); },
      publicRoute);
  registry.job({.name = "social-purge",
                .interval = std::chrono::minutes(10),
                .run = [this](JobContext&) { purgeExpired(); }});
}

const ProviderConfig& SocialRoutes::providerOf(const rapport::Request& req) const {
  const ProviderConfig* provider = options_.find(req.param("provider"));
  // Unknown and unconfigured answer alike (decisions §5).
  if (provider == nullptr) throw rapport::Error::notFound("Social login provider not supported.");
  return *provider;
}

rapport::Response SocialRoutes::redirect(const rapport::Request& req) {
  const ProviderConfig& provider = providerOf(req);
  const std::optional<std::string> asked = req.queryParam("redirect_uri");
  if (asked && !options_.redirectAllowed(*asked)) {
    throw rapport::Error::invalidField("redirect_uri", "The redirect uri is not allowed.");
  }
  if (!asked && options_.redirectAllowlist.empty()) {
    throw rapport::Error::invalidField("redirect_uri",
                                       "No redirect uri is allowed: the operator lists them in "
                                       "social.redirect_allowlist.");
  }
  // Without the query, the first allowed URI (docs/social-login.md).
  const std::string redirectUri = asked ? *asked : options_.redirectAllowlist.front();
  const std::string state = rapport::randomToken(kSecretBytes);
  const std::string verifier = newCodeVerifier();
  const std::int64_t now = ctx_.clock();
  const NewBinding binding = newBinding(req);
  PendingState pending;
  pending.stateHash = rapport::sha256Hex(state);
  pending.bindingHash = binding.bindingHash;
  pending.clientHash = binding.clientHash;
  pending.provider = provider.name;
  pending.codeVerifierSealed = secrets_.seal(verifier, sealContext(pending.stateHash));
  pending.redirectUri = redirectUri;
  pending.createdAt = now;
  pending.expiresAt = now + kStateTtlSeconds * kMicrosPerSecond;
  store::insertState(ctx_.db, pending);

  const std::string url = provider.authorizeUrl +
                          (provider.authorizeUrl.find('?') == std::string::npos ? "?" : "&") +
                          formEncode(FormFields{{"client_id", provider.clientId},
                                                {"redirect_uri", redirectUri},
                                                {"response_type", "code"},
                                                {"scope", provider.scope},
                                                {"state", state},
                                                {"code_challenge", s256Challenge(verifier)},
                                                {"code_challenge_method", "S256"}});
  return rapport::Response::ok(
             Json::object({{"authorization_url", url}, {"redirect_url", url}, {"state", state}}),
             "Redirect the user to the provider.")
      .withHeader("Set-Cookie", bindingCookie(req, binding.value, kStateTtlSeconds));
}

UserRecord SocialRoutes::signIn(const ProviderConfig& provider, const std::string& code,
                                const std::string& state, const StateClaim& claim) {
  const std::string stateHash = rapport::sha256Hex(state);
  const auto pending = store::consumeState(ctx_.db, stateHash, provider.name, ctx_.clock(), claim);
  if (!pending) throw rapport::Error::invalidField("state", kBadState);
  std::string verifier;
  try {
    verifier = secrets_.open(pending->codeVerifierSealed, sealContext(stateHash));
  } catch (const std::runtime_error&) {
    // Sealed under another key (secrets.key changed meanwhile): start again.
    throw rapport::Error::invalidField("state", kBadState);
  }
  ProviderProfile profile;
  try {
    const std::string accessToken =
        client_.exchangeCode(provider, code, pending->redirectUri, verifier);
    profile = client_.fetchProfile(provider, accessToken);
  } catch (const ProviderFailure& e) {
    ctx_.log.warn("social login failed provider=" + provider.name + ": " + e.what());
    if (e.kind == ProviderFailure::Kind::Rejected)
      throw rapport::Error::unauthorized(kProviderFailed);
    throw rapport::Error(502, "The identity provider could not be reached.");
  }
  return resolveUser(provider, profile);
}

UserRecord SocialRoutes::resolveUser(const ProviderConfig& provider,
                                     const ProviderProfile& profile) {
  // A concurrent first login of the same person (same subject or e-mail)
  // loses on a unique key; run again once, and find what the winner made.
  for (int run = 0;; ++run) {
    try {
      UserRecord user;
      std::string how;
      ctx_.db.transaction("", [&](Tx& tx) {
        const std::int64_t now = ctx_.clock();
        if (auto identity = store::findIdentity(tx, provider.name, profile.subject)) {
          auto found = users::findById(tx, identity->userId);
          if (!found) throw std::logic_error("social identity without its user");
          store::touchIdentity(tx, *identity, profile.email, now);
          user = *found;
          how = "matched";
          return;
        }
        if (!profile.email) {
          throw rapport::Error(422, "The identity provider did not share an e-mail address.");
        }
        if (auto existing = users::findByEmail(tx, rapport::toLower(*profile.email))) {
          if (!profile.emailVerified) throw rapport::Error::conflict(kProviderUnverified);
          // Pre-hijacking: whoever registered the address with a password
          // without ever proving it must not share the owner's account.
          if (!existing->emailVerifiedAt) throw rapport::Error::conflict(kAccountUnverified);
          store::insertIdentity(tx, {provider.name, profile.subject, existing->id}, profile.email,
                                now);
          user = *existing;
          how = "linked";
          return;
        }
        if (!profile.emailVerified) throw rapport::Error(422, kNewUnverified);
        user = UserRecord{};
        user.id = rapport::newId("user_");
        user.name = profile.name;
        user.email = *profile.email;
        user.emailVerifiedAt = now;  // the provider vouched for it
        user.createdAt = now;
        user.updatedAt = now;
        users::insert(tx, user);
        companies::createOwned(tx, companyNameFor(user.name), user.id, now);
        store::insertIdentity(tx, {provider.name, profile.subject, user.id}, profile.email, now);
        how = "created";
      });
      ctx_.log.info("social login provider=" + provider.name + " user_id=" + user.id + " " + how);
      return user;
    } catch (const DbError& e) {
      if (!e.isUniqueViolation() || run > 0) throw;
    }
  }
}

rapport::Response SocialRoutes::answerFor(const UserRecord& user) {
  if (user.disabled) throw rapport::Error::forbidden("This account has been disabled.");
  if (user.twoFactorEnabled) {
    // Fail closed: without the two-factor component no token is issued.
    if (!ctx_.secondFactor) {
      throw rapport::Error(503, "Two-factor authentication is unavailable. Try again later.");
    }
    return ctx_.secondFactor(user, false);
  }
  const std::optional<std::string> companyId = companies::firstCompanyOf(ctx_.db, user.id);
  if (!companyId) throw rapport::Error::forbidden("This account does not belong to any company.");
  const IssuedToken issued = ctx_.tokens.issue(user.id, *companyId, false);
  Json data = tokenJson(issued);
  data.set("user", users::tokenUserJson(user, *companyId));
  return rapport::Response::ok(std::move(data), "Logged in.");
}

rapport::Response SocialRoutes::callback(const rapport::Request& req) {
  const ProviderConfig& provider = providerOf(req);
  const CodeAndState input = readCodeAndState(req.bodyObject());
  return answerFor(signIn(provider, input.code, input.state, claimOf(req)));
}

rapport::Response SocialRoutes::callbackGet(const rapport::Request& req) {
  const ProviderConfig& provider = providerOf(req);
  // The provider sends the user back with ?error=access_denied (RFC 6749
  // §4.1.2.1) when they declined: the state dies with it.
  if (req.queryParam("error")) {
    if (auto state = req.queryParam("state")) {
      store::consumeState(ctx_.db, rapport::sha256Hex(*state), provider.name, ctx_.clock(),
                          claimOf(req));
    }
    throw rapport::Error::unauthorized(kProviderFailed);
  }
  const CodeAndState input = readCodeAndState(queryAsBody(req, {"code", "state"}));
  const UserRecord user = signIn(provider, input.code, input.state, claimOf(req));
  const std::string code = rapport::randomToken(kSecretBytes);
  const std::int64_t now = ctx_.clock();
  store::insertExchangeCode(ctx_.db, rapport::sha256Hex(code), provider.name, user.id, now,
                            now + kExchangeTtlSeconds * kMicrosPerSecond);
  return rapport::Response::ok(Json::object({{"exchange_code", code}}),
                               "Exchange the code for a token.");
}

rapport::Response SocialRoutes::exchange(const rapport::Request& req) {
  Validator v(req.bodyObject());
  auto code = v.string("exchange_code", {.required = true, .max = 512});
  v.check();
  const auto userId =
      store::consumeExchangeCode(ctx_.db, rapport::sha256Hex(*code.value), ctx_.clock());
  if (!userId) throw rapport::Error::invalidField("exchange_code", kBadExchangeCode);
  const auto user = users::findById(ctx_.db, *userId);
  if (!user) throw rapport::Error::invalidField("exchange_code", kBadExchangeCode);
  return answerFor(*user);
}

std::int64_t SocialRoutes::purgeExpired() {
  return store::purgeExpired(ctx_.db, ctx_.clock());
}

}  // namespace rapport::host::accounts::social
