#include "http/Pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <utility>

#include "conditional/ConditionalRoutes.h"
#include "http/BearerToken.h"
#include "http/Envelope.h"
#include "http/RequestBuilder.h"
#include "http/RequestId.h"
#include "idempotency/IdempotencyKeys.h"
#include "log/Log.h"
#include "log/RequestScope.h"
#include "metrics/Metrics.h"
#include "rapport/db.h"
#include "rapport/error.h"
#include "rapport/scopes.h"
#include "rapport/time.h"
#include "ratelimit/ClientKey.h"

namespace rapport::host {

struct Pipeline::Context {
  std::string requestId;
  std::int64_t nowMicros = 0;
  std::optional<rapport::Identity> identity;
  RateDecision rate;
  VersionVerdict version;
  std::string owner = "host";  // whose code failed, for the log
  // The matched route, whose pattern names the request in metrics and log.
  const Route* route = nullptr;
  // The transport read the request whole (api.check_responses checks the
  // answer; a refusal of the transport is the same for every path).
  bool readWhole = false;
};

namespace {

constexpr std::int64_t kMicrosPerSecond = 1'000'000;

// Health probes come from load balancers every few seconds; counting them
// would eat the budget of whoever shares their address.
bool isHealthProbe(const std::string& path) {
  return path == "/healthz" || path == "/readyz";
}

// Who a request is counted against: its token, or its client key (IPv6 per
// /64, ratelimit/ClientKey.h) when it has none. Public routes (login,
// register, forgot-password, the two-factor challenges, social login...)
// always count against the client key: a token of one's own must not buy a
// guesser a fresh budget on them.
std::string rateKey(const RawRequest& raw, const std::optional<rapport::Identity>& identity,
                    const Route* route) {
  const bool isPublic = route && route->options.access == rapport::Access::Public;
  // Each API key has a counter of its own (decisions §15).
  if (identity && !isPublic && identity->isApiKey()) return "k:" + identity->tokenId;
  if (identity && !isPublic) return "t:" + identity->userId + ":" + identity->tokenId;
  return "ip:" + clientKey(raw.clientAddress);
}

// The headers' values before (or without) a store's answer: a whole window left.
RateDecision freshWindow(const PipelineOptions& options, std::int64_t nowSeconds) {
  const std::int64_t window = std::max<std::int64_t>(1, options.rateLimitWindow);
  RateDecision decision;
  decision.limit = options.rateLimitRequests;
  decision.remaining = std::max<std::int64_t>(0, options.rateLimitRequests);
  decision.resetAt = nowSeconds - nowSeconds % window + window;
  decision.retryAfter = std::max<std::int64_t>(1, decision.resetAt - nowSeconds);
  return decision;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// What the transport refused to read, in the API's shape.
void checkRead(const RawRequest& raw) {
  switch (raw.readState) {
    case ReadState::Complete:
      return;
    case ReadState::TooLarge:
      throw rapport::Error(413, rapport::Error::genericMessage(413));
    case ReadState::Incomplete:
      throw rapport::Error::badRequest("Malformed request: the body ended early.");
    case ReadState::Malformed:
      throw rapport::Error::badRequest(rapport::Error::genericMessage(400));
    case ReadState::UriTooLong:
      throw rapport::Error(414, "URI too long.");
    case ReadState::HeaderFieldsTooLarge:
      throw rapport::Error(431, "Request header fields too large.");
    case ReadState::VersionNotSupported:
      throw rapport::Error(505, "HTTP version not supported.");
    case ReadState::HostMissing:
      throw rapport::Error::badRequest("The Host header is required.");
    case ReadState::HostRepeated:
      throw rapport::Error::badRequest("Only one Host header is allowed.");
    case ReadState::TimedOut:
      throw rapport::Error(408, "The request did not arrive in time.");
  }
}

void authorize(const Route& route, const std::optional<rapport::Identity>& identity) {
  // An API key calls only the routes that declared a scope, with that scope
  // (decisions §15), and then as what its role allows like anyone. Public
  // routes too: a key sent to login or refresh is an account route's 403.
  if (identity && identity->isApiKey()) {
    if (route.keyScope.empty()) throw rapport::Error::forbidden("API keys cannot use this route.");
    rapport::requireScope(*identity, route.keyScope);
  }
  if (route.options.access == rapport::Access::Public) return;
  if (!identity) {
    throw rapport::Error::unauthorized().withHeader("WWW-Authenticate", "Bearer");
  }
  const auto& roles = route.options.roles;
  if (!roles.empty() && std::find(roles.begin(), roles.end(), identity->role) == roles.end()) {
    throw rapport::Error::forbidden();
  }
}

RawResponse fromResponse(const rapport::Response& response, RouteBody body) {
  // A status outside 2xx-5xx cannot carry our envelope: a module bug.
  if (response.status < 200 || response.status > 599) {
    throw std::logic_error("handler returned status " + std::to_string(response.status));
  }
  RawResponse out;
  out.status = response.status;
  out.headers = response.headers;
  out.body = body == RouteBody::DataOnly ? (response.data ? response.data->dump() : "{}")
                                         : renderResponse(response);
  return out;
}

// A 304: the validator headers of the 200 it stands for, no body.
RawResponse notModified(const rapport::Response& response) {
  RawResponse out;
  out.status = 304;
  for (const auto& [name, value] : response.headers) {
    if (name == "ETag") out.headers.emplace_back(name, value);
  }
  return out;
}

// The Idempotency-Key of a request that honours one: a POST with a token
// (keys belong to a company and a user; public routes have neither).
std::optional<std::string> idempotencyKey(const rapport::Request& request, const Route& route,
                                          const PipelineOptions& options) {
  if (options.idempotency == nullptr || request.method != "POST" ||
      route.options.access == rapport::Access::Public || !request.identity.authenticated) {
    return std::nullopt;
  }
  return request.header("Idempotency-Key");
}

RawResponse internalError() {
  RawResponse out;
  out.status = 500;
  out.body = renderMessage(rapport::Error::genericMessage(500));
  return out;
}

// A database that is busy (lock wait or pool wait ran out, a deadlock that
// outlived the retries) or unreachable: the request changed nothing and may
// succeed if sent again, which 503 with Retry-After tells the client.
bool isTransient(const rapport::DbError& error) {
  return error.kind() == rapport::DbError::Kind::Busy ||
         error.kind() == rapport::DbError::Kind::ConnectionLost;
}

void logFailure(const RawRequest& raw, const std::string& requestId, const std::string& owner,
                const char* what) {
  log::error("request failed", {{"req", requestId},
                                {"module", owner},
                                {"method", raw.method},
                                {"path", raw.path},
                                {"error", what}});
}

RawResponse fromError(const rapport::Error& error, const RawRequest& raw, const std::string& id,
                      const std::string& owner) {
  if (error.status() < 400 || error.status() > 599) {
    logFailure(
        raw, id, owner,
        ("rapport::Error with status " + std::to_string(error.status()) + ": " + error.what())
            .c_str());
    return internalError();
  }
  RawResponse out;
  out.status = error.status();
  out.headers = error.headers();
  out.body = renderError(error);
  return out;
}

// The access line. Never the query or the body: they may hold codes,
// tokens or passwords. `bytes` is the body sent (the head aside).
void logAccess(const RawRequest& raw, const RawResponse& response, const std::string& requestId,
               std::string_view route, const std::optional<rapport::Identity>& identity,
               std::chrono::steady_clock::duration elapsed) {
  // The formatting below costs more than the rest of a cheap request.
  if (!log::enabled(log::Level::Info)) return;
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.3f", std::chrono::duration<double, std::milli>(elapsed).count());
  const std::string status = std::to_string(response.status);
  const std::string bytes = std::to_string(response.body.size());
  log::info("request", {{"req", requestId},
                        {"method", raw.method},
                        {"route", route},
                        {"path", raw.path},
                        {"status", status},
                        {"bytes", bytes},
                        {"ms", ms},
                        {"client", raw.clientAddress},
                        // Who: user_... or key_..., never the token or key.
                        {"principal", identity ? identity->principalId() : std::string()}});
}

}  // namespace

Pipeline::Pipeline(const Router& router, Authenticator& authenticator, RateLimitStore& rateLimits,
                   const VersionPolicy& versions, PipelineOptions options, Clock clock)
    : router_(router),
      authenticator_(authenticator),
      rateLimits_(rateLimits),
      versions_(versions),
      options_(options),
      clock_(clock ? std::move(clock) : Clock([] { return rapport::nowMicros(); })),
      storeErrors_(options.onStoreError) {}

RawResponse Pipeline::handle(const RawRequest& raw) const {
  const auto started = std::chrono::steady_clock::now();
  Context ctx;
  RawResponse response;
  try {
    ctx.requestId = requestIdFor(raw.headers);
    ctx.nowMicros = clock_();
    ctx.rate = freshWindow(options_, ctx.nowMicros / kMicrosPerSecond);
    // Evaluated up front so that every answer for the path, 429 included,
    // carries its deprecation headers.
    ctx.version = versions_.evaluate(raw.path, ctx.nowMicros);
    response = respond(raw, ctx);
  } catch (...) {
    // Only the clock or the id generator can get here.
    log::error("request setup failed", {{"method", raw.method}, {"path", raw.path}});
    response = internalError();
  }
  finish(response, ctx);
  check(raw, response, ctx);
  const auto elapsed = std::chrono::steady_clock::now() - started;
  const std::string_view route = ctx.route ? ctx.route->pattern : metrics::kUnmatchedRoute;
  metrics::requestServed(route, raw.method, response.status, elapsed);
  logAccess(raw, response, ctx.requestId, route, ctx.identity, elapsed);
  return response;
}

RawResponse Pipeline::respond(const RawRequest& raw, Context& ctx) const {
  try {
    return route(raw, ctx);
  } catch (const rapport::Error& error) {
    return fromError(error, raw, ctx.requestId, ctx.owner);
  } catch (const rapport::DbError& e) {
    logFailure(raw, ctx.requestId, ctx.owner, e.what());
    if (isTransient(e)) {
      return fromError(
          rapport::Error(503, rapport::Error::genericMessage(503)).withHeader("Retry-After", "1"),
          raw, ctx.requestId, ctx.owner);
    }
  } catch (const std::exception& e) {
    logFailure(raw, ctx.requestId, ctx.owner, e.what());
  } catch (...) {
    logFailure(raw, ctx.requestId, ctx.owner, "unknown exception");
  }
  return internalError();
}

RawResponse Pipeline::route(const RawRequest& raw, Context& ctx) const {
  ctx.identity = authenticate(raw.headers);
  // Matched before the rate limit, which needs the route's access; a 404
  // or 405 still counts like any request.
  RouteMatch match = router_.match(raw.method, raw.path);
  ctx.route = match.route;
  ctx.readWhole = raw.readState == ReadState::Complete;
  limitRate(raw, ctx, match.route);
  checkRead(raw);
  if (ctx.version.gone) throw rapport::Error::gone(ctx.version.goneMessage);
  if (match.kind == RouteMatch::Kind::NotFound) throw rapport::Error(404, "Not found.");
  if (match.kind == RouteMatch::Kind::MethodNotAllowed) {
    throw rapport::Error(405, rapport::Error::genericMessage(405))
        .withHeader("Allow", joined(match.allowed));
  }
  const Route& route = *match.route;
  ctx.owner = route.owner;
  authorize(route, ctx.identity);
  const rapport::Request request = buildRequest(raw, std::move(match), ctx.requestId, ctx.identity);
  // Names the request and its actor in the event log.
  RequestScope scope(ctx.requestId,
                     ctx.identity ? rapport::actorOf(*ctx.identity) : rapport::Actor{});
  std::unique_ptr<IdempotencyKeys::Claim> claim;
  if (const auto key = idempotencyKey(request, route, options_)) {
    IdempotencyKeys::Begun begun = options_.idempotency->begin(request, *key, ctx.nowMicros);
    if (begun.replay) return std::move(*begun.replay);
    claim = std::move(begun.claim);
  }
  RawResponse response =
      runHandler(route, request, claim ? claim->fence() : RequestTransactions::Hook{});
  if (claim) claim->complete(response);
  return response;
}

// The handler, between the record's conditions (conditional/), its
// transactions carrying the If-Match check and the Idempotency-Key fence
// (storage/RequestTransactions.h).
RawResponse Pipeline::runHandler(const Route& route, const rapport::Request& request,
                                 RequestTransactions::Hook fence) const {
  const ConditionalRoutes* conditions = options_.conditions;
  const RequestTransactions armed(
      {.first = conditions ? conditions->before(route, request) : RequestTransactions::Hook{},
       .beforeCommit = std::move(fence)});
  rapport::Response response = route.handler(request);
  if (conditions && conditions->after(route, request, response)) return notModified(response);
  return fromResponse(response, route.body);
}

// A present but unknown, expired or revoked token is not an error yet:
// public routes ignore it, protected ones answer 401 once routed.
std::optional<rapport::Identity> Pipeline::authenticate(const rapport::Headers& headers) const {
  const std::string token = bearerToken(headers);
  if (token.empty()) return std::nullopt;
  auto identity = authenticator_.authenticate(token);
  if (identity) identity->authenticated = true;
  return identity;
}

void Pipeline::limitRate(const RawRequest& raw, Context& ctx, const Route* route) const {
  const std::string key = rateKey(raw, ctx.identity, route);
  const std::int64_t now = ctx.nowMicros / kMicrosPerSecond;
  try {
    ctx.rate =
        isHealthProbe(raw.path)
            ? rateLimits_.peek(key, options_.rateLimitRequests, options_.rateLimitWindow, now)
            : rateLimits_.hit(key, options_.rateLimitRequests, options_.rateLimitWindow, now);
  } catch (const std::exception& e) {
    // The store cannot count (redis down): serve uncounted, or refuse where
    // an uncounted guesser would be worse than an outage.
    const bool authRoute =
        route && isAuthRoute(route->pattern, route->options.access == rapport::Access::Public);
    const bool refused = !isHealthProbe(raw.path) && storeErrors_.refuses(authRoute);
    metrics::rateLimitStoreFailed(refused);
    storeErrors_.report(e.what(), refused);
    if (refused) {
      throw rapport::Error(503, "Service temporarily unavailable. Please try again shortly.")
          .withHeader("Retry-After", "1");
    }
    return;
  }
  if (!ctx.rate.allowed && !isHealthProbe(raw.path)) {
    metrics::rateLimited();
    throw rapport::Error::tooManyRequests(static_cast<long>(ctx.rate.retryAfter));
  }
}

void Pipeline::check(const RawRequest& raw, RawResponse& response, const Context& ctx) const {
  if (!options_.checkResponse || !ctx.route || !ctx.readWhole) return;
  std::string problem;
  try {
    problem = options_.checkResponse(*ctx.route, response);
  } catch (const std::exception& e) {
    problem = std::string("the check failed: ") + e.what();
  }
  if (problem.empty()) return;
  logFailure(raw, ctx.requestId, ctx.owner,
             ("the answer does not match its route's description: " + problem).c_str());
  response = internalError();
  finish(response, ctx);
}

void Pipeline::finish(RawResponse& response, const Context& ctx) const {
  for (const auto& [name, value] : ctx.version.headers) response.setHeader(name, value);
  if (response.status != 304) response.setHeader("Content-Type", "application/json; charset=utf-8");
  response.setHeader("X-Request-Id", ctx.requestId);
  response.setHeader("X-RateLimit-Limit", std::to_string(ctx.rate.limit));
  response.setHeader("X-RateLimit-Remaining", std::to_string(ctx.rate.remaining));
  response.setHeader("X-RateLimit-Reset", std::to_string(ctx.rate.resetAt));
}

}  // namespace rapport::host
