#include "batch/BatchRoute.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "batch/BatchDoc.h"
#include "batch/BatchItems.h"
#include "http/Envelope.h"
#include "log/Log.h"
#include "rapport/error.h"
#include "rapport/validation.h"

namespace rapport::host {
namespace {

using rapport::Json;
using rapport::Request;
using rapport::Response;

// What a batch runs: the module's own handlers, copied from its routes.
struct BatchTarget {
  std::string owner;
  std::string collection;  // "/v1/crm/contacts"
  rapport::Handler create;
  rapport::Handler update;
  rapport::BatchSpec spec;
  rapport::Queryable* db = nullptr;
};

// `what` names the batch in the refusal: "batch /v1/crm/contacts of 'contacts'".
const Route& ownRoute(const Router& router, const std::string& method, const std::string& pattern,
                      const std::string& owner, const std::string& what) {
  for (const Route* route : router.routes()) {
    if (route->method == method && route->pattern == pattern && route->owner == owner) {
      return *route;
    }
  }
  throw std::logic_error(what + ": it has no " + method + " " + pattern + " route");
}

// The request the item's handler reads, as the Pipeline's RequestBuilder
// would build it for the same call sent alone. The batch's conditional and
// idempotency headers are its own: no item sees them.
Request itemRequest(const Request& batch, std::string method, std::string path,
                    std::map<std::string, std::string> params, const Json& data) {
  Request request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.apiVersion = batch.apiVersion;
  request.requestId = batch.requestId;
  request.clientAddress = batch.clientAddress;
  request.headers = batch.headers;
  for (const char* name : {"Idempotency-Key", "If-Match", "If-None-Match", "Content-Length"}) {
    request.headers.erase(name);
  }
  request.pathParams = std::move(params);
  request.body = data;
  request.hasBody = true;
  request.identity = batch.identity;
  return request;
}

Response create(const BatchTarget& target, const Request& batch, const Json& data) {
  return target.create(itemRequest(batch, "POST", target.collection, {}, data));
}

Response update(const BatchTarget& target, const Request& batch, const std::string& id,
                const Json& data) {
  // The Pipeline answers a path parameter that cannot be an id as a 404.
  if (!rapport::isValidUtf8(id)) throw rapport::Error::notFound();
  return target.update(
      itemRequest(batch, "PATCH", target.collection + "/" + id, {{"id", id}}, data));
}

// The record `data` names (by `matchOn`, the item's or the batch's match_on,
// empty for the collection's own key) is updated, or created when there is
// none. A 409 from the create is a concurrent create of the same key that
// won: the record it made is updated instead, once.
Response upsert(const BatchTarget& target, const Request& batch, const Json& data,
                const std::string& matchOn) {
  const std::string& company = batch.identity.companyId;
  if (const auto id = target.spec.match(*target.db, company, data, matchOn)) {
    return update(target, batch, *id, data);
  }
  try {
    return create(target, batch, data);
  } catch (const rapport::Error& error) {
    if (error.status() != 409) throw;
    const auto winner = target.spec.match(*target.db, company, data, matchOn);
    if (!winner) throw;
    return update(target, batch, *winner, data);
  }
}

Response run(const BatchTarget& target, const Request& batch, const BatchItem& item) {
  switch (item.action) {
    case BatchAction::Create:
      return create(target, batch, item.data);
    case BatchAction::Update:
      return update(target, batch, item.id, item.data);
    case BatchAction::Upsert:
      return upsert(target, batch, item.data, item.matchOn);
  }
  throw std::logic_error("unknown batch action");
}

// {"status", "data"} (or "message" when the handler answered no data).
Json successOf(const Response& response) {
  if (response.status < 200 || response.status > 599) {
    throw std::logic_error("handler returned status " + std::to_string(response.status));
  }
  Json result = Json::object({{"status", static_cast<std::int64_t>(response.status)}});
  if (response.data) {
    result.set("data", *response.data);
  } else {
    result.set("message", response.message);
  }
  return result;
}

// The error envelope the Pipeline would have sent for the item alone
// ({"message", "errors" on a 422 with field errors}), with its status.
Json failureOf(const rapport::Error& error) {
  Json result = Json::object({{"status", static_cast<std::int64_t>(error.status())}});
  Json envelope = Json::parse(renderError(error));
  for (auto& [name, value] : envelope.asObject()) {
    result.set(name, std::move(value));
  }
  return result;
}

Json genericFailure(int status) {
  return failureOf(rapport::Error(status, rapport::Error::genericMessage(status)));
}

void logFailure(const BatchTarget& target, const Request& batch, std::size_t index,
                const char* what) {
  const std::string item = std::to_string(index);
  log::error("batch item failed", {{"req", batch.requestId},
                                   {"module", target.owner},
                                   {"method", batch.method},
                                   {"path", batch.path},
                                   {"item", item},
                                   {"error", what}});
}

// One item's result; never throws (each item is its own unit of success).
Json resultOf(const BatchTarget& target, const Request& batch, const BatchItem& item,
              std::size_t index) {
  try {
    return successOf(run(target, batch, item));
  } catch (const rapport::Error& error) {
    if (error.status() >= 400 && error.status() <= 599) return failureOf(error);
    logFailure(
        target, batch, index,
        ("rapport::Error with status " + std::to_string(error.status()) + ": " + error.what())
            .c_str());
  } catch (const rapport::DbError& error) {
    logFailure(target, batch, index, error.what());
    const bool transient = error.kind() == rapport::DbError::Kind::Busy ||
                           error.kind() == rapport::DbError::Kind::ConnectionLost;
    if (transient) return genericFailure(503);
  } catch (const std::exception& error) {
    logFailure(target, batch, index, error.what());
  } catch (...) {
    logFailure(target, batch, index, "unknown exception");
  }
  return genericFailure(500);
}

// A batch's match_on names one field for all the upserts that send none of
// their own: when the collection's match refuses it (a 422 on match_on, which
// does not depend on the item's data), the whole call is that 422 and
// nothing runs (decisions §14). Asked once, with the first such item; any
// other outcome is left to the items themselves, which match again.
void checkBatchMatchOn(const BatchTarget& target, const Request& batch,
                       const std::vector<BatchItem>& items) {
  const auto first = std::find_if(items.begin(), items.end(), [](const BatchItem& item) {
    return item.action == BatchAction::Upsert && !item.ownMatchOn && !item.matchOn.empty();
  });
  if (first == items.end()) return;
  try {
    target.spec.match(*target.db, batch.identity.companyId, first->data, first->matchOn);
  } catch (const rapport::Error& error) {
    const auto refused = error.errors().find("match_on");
    if (error.status() == 422 && refused != error.errors().end()) {
      throw rapport::Error::validation({*refused});
    }
  }
}

Response serve(const BatchTarget& target, const Request& request) {
  const std::vector<BatchItem> items = readBatchItems(request.bodyObject(), target.spec.upsertBy);
  checkBatchMatchOn(target, request, items);
  Json results = Json::array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    results.push(resultOf(target, request, items[i], i));
  }
  return Response::ok(std::move(results), "Batch processed.");
}

}  // namespace

void registerBatchRoute(Router& router, const std::string& collection, rapport::BatchSpec spec,
                        rapport::Queryable* db, const std::string& owner) {
  const std::string what = "batch " + collection + " of '" + owner + "'";
  if (spec.upsertBy.empty() != !spec.match) {
    throw std::logic_error(what + ": upsertBy and match go together");
  }
  if (spec.match && db == nullptr) throw std::logic_error(what + ": no database for upserts");
  const Route& post = ownRoute(router, "POST", collection, owner, what);
  const Route& patch = ownRoute(router, "PATCH", collection + "/{id}", owner, what);
  rapport::RouteDoc doc = batchDoc(post, patch, spec.upsertBy);
  const rapport::RouteOptions options = post.options;
  auto target = std::make_shared<const BatchTarget>(
      BatchTarget{owner, collection, post.handler, patch.handler, std::move(spec), db});
  const std::string pattern = collection + "/batch";
  router.add(
      "POST", pattern, [target](const Request& request) { return serve(*target, request); },
      options, owner);
  router.describe("POST", pattern, std::move(doc), owner);
}

}  // namespace rapport::host
