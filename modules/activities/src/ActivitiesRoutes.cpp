#include "ActivitiesRoutes.h"

#include "ActivitiesJson.h"
#include "ActivitiesQuery.h"
#include "ActivitiesValidation.h"
#include "rapport/error.h"
#include "rapport/ids.h"
#include "rapport/list.h"
#include "rapport/pagination.h"
#include "rapport/time.h"

namespace activities {
namespace {

using rapport::Error;
using rapport::Json;
using rapport::Request;
using rapport::Response;
using rapport::Tx;

const char* const kNotFound = "Activity not found.";

// Applies the fields a PATCH sent to `activity`. Validation refuses a null
// type or title, so those are absent or a value; a null clears the others.
void merge(const ActivityInput& in, Activity& activity) {
  in.type.applyTo(activity.type);
  in.title.applyTo(activity.title);
  in.description.applyTo(activity.description);
  in.scheduledAt.applyTo(activity.scheduledAt);
  in.durationMinutes.applyTo(activity.durationMinutes);
  in.ownerId.applyTo(activity.ownerId);
  in.relatedTo.applyTo(activity.relatedTo);
}

}  // namespace

ActivitiesRoutes::ActivitiesRoutes(rapport::Host& host) : host_(host) {}

Response ActivitiesRoutes::list(const Request& request) {
  return page(request, validateFilter(request, host_.records()));
}

Response ActivitiesRoutes::listOfRelated(const Request& request, const std::string& relatedType,
                                         const std::string& notFound) {
  const std::string& id = request.param("id");
  rapport::Queryable& db = host_.db();
  if (!host_.records().exists(db, request.identity.companyId, relatedType, id)) {
    throw Error::notFound(notFound);
  }
  ActivityFilter filter = validateFilter(request, host_.records());
  filter.relatedType = relatedType;  // the path's record, whatever the query says
  filter.relatedId = id;
  return page(request, filter);
}

Response ActivitiesRoutes::page(const Request& request, const ActivityFilter& filter) {
  const rapport::RecordQuery& query = activitiesQuery();
  return query.answer(host_, query.read(request),
                      store::whereOf(host_.db().dialect(), request.identity.companyId, filter),
                      store::columns(), activityJson);
}

Response ActivitiesRoutes::search(const Request& request) {
  return activitiesQuery().search(host_, request, store::columns(), activityJson);
}

Response ActivitiesRoutes::create(const Request& request) {
  const ActivityInput in = validateActivity(request.bodyObject(), Mode::Create, host_.records());
  const Activity activity{.type = *in.type.value,
                          .title = *in.title.value,
                          .description = in.description.value,
                          .scheduledAt = in.scheduledAt.value,
                          .durationMinutes = in.durationMinutes.value,
                          .ownerId = in.ownerId.value,
                          .relatedTo = in.relatedTo.value};
  const std::string id = rapport::newId("act_");
  Json created;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (activity.ownerId) requireOwner(tx, *activity.ownerId);
    if (activity.relatedTo) requireRelated(tx, *activity.relatedTo);
    store::insert(tx, id, activity, rapport::nowMicros());
    created = activityJson(*store::find(tx, tx.companyId(), id));
    tx.emit("crm.activity.created", created);
  });
  return Response::created(created, "Activity created.");
}

Response ActivitiesRoutes::get(const Request& request) {
  rapport::Queryable& db = host_.db();
  const auto row = store::find(db, request.identity.companyId, request.param("id"));
  if (!row) throw Error::notFound(kNotFound);
  return Response::ok(activityJson(*row));
}

Response ActivitiesRoutes::update(const Request& request) {
  const ActivityInput in = validateActivity(request.bodyObject(), Mode::Update, host_.records());
  const std::string& id = request.param("id");
  Json updated;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = store::findForUpdate(tx, id);
    if (!row) throw Error::notFound(kNotFound);
    const Activity before = store::fromRow(*row);
    Activity activity = before;
    merge(in, activity);
    if (activity == before) {  // nothing changes: no write, no event
      updated = activityJson(*row);
      return;
    }
    // A reference is checked (and locked) when it changes: an unchanged one
    // already holds, since deleting its record clears it.
    if (activity.ownerId && activity.ownerId != before.ownerId) {
      requireOwner(tx, *activity.ownerId);
    }
    if (activity.relatedTo && activity.relatedTo != before.relatedTo) {
      requireRelated(tx, *activity.relatedTo);
    }
    store::update(tx, id, activity, rapport::nowMicros());
    updated = activityJson(*store::find(tx, tx.companyId(), id));
    tx.emit("crm.activity.updated", updated);
  });
  return Response::ok(updated, "Activity updated.");
}

Response ActivitiesRoutes::remove(const Request& request) {
  const std::string& id = request.param("id");
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    if (!store::remove(tx, id)) throw Error::notFound(kNotFound);
    host_.records().deleted(tx, "activity", id);  // no module refers to activities today
    tx.emit("crm.activity.deleted", Json::object({{"id", id}}));
  });
  return Response::ok(Json::object({{"id", id}}), "Activity deleted.");
}

Response ActivitiesRoutes::complete(const Request& request) {
  const std::string& id = request.param("id");
  Json completed;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = store::findForUpdate(tx, id);
    if (!row) throw Error::notFound(kNotFound);
    if (store::isCompleted(*row)) throw Error::conflict("The activity is already completed.");
    store::setCompleted(tx, id, true, rapport::nowMicros());
    completed = activityJson(*store::find(tx, tx.companyId(), id));
    tx.emit("crm.activity.completed", completed);
  });
  return Response::ok(completed, "Activity completed.");
}

Response ActivitiesRoutes::reopen(const Request& request) {
  const std::string& id = request.param("id");
  Json reopened;
  host_.db().transaction(request.identity.companyId, [&](Tx& tx) {
    const auto row = store::findForUpdate(tx, id);
    if (!row) throw Error::notFound(kNotFound);
    if (!store::isCompleted(*row)) throw Error::conflict("The activity is not completed.");
    store::setCompleted(tx, id, false, rapport::nowMicros());
    reopened = activityJson(*store::find(tx, tx.companyId(), id));
    // The API names no event for reopen; crm.activity.updated tells
    // subscribers the status changed (docs/modules/activities.md).
    tx.emit("crm.activity.updated", reopened);
  });
  return Response::ok(reopened, "Activity reopened.");
}

void ActivitiesRoutes::requireOwner(Tx& tx, const std::string& ownerId) const {
  if (!host_.records().lockForReference(tx, "user", ownerId)) {
    throw Error::notFound("Owner not found.");
  }
}

void ActivitiesRoutes::requireRelated(Tx& tx, const RelatedTo& related) const {
  if (!host_.records().lockForReference(tx, related.type, related.id)) {
    throw Error::notFound("Related record not found.");
  }
}

}  // namespace activities
