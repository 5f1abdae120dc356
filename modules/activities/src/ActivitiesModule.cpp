// activities: calls, meetings, e-mails, tasks and notes, each optionally
// related to a contact, a CRM company or a deal (docs/modules/activities.md).
// This file is the module's table of contents: what it is, what it stores,
// the events it emits, the record type it owns, the routes it serves and how
// it reacts to the deletion of the records it relates to.
#include <memory>

#include "ActivitiesApiDoc.h"
#include "ActivitiesJson.h"
#include "ActivitiesQuery.h"
#include "ActivitiesRoutes.h"
#include "ActivitiesStore.h"
#include "ActivitiesTables.h"
#include "rapport/sdk.h"

namespace activities {
namespace {

using rapport::Request;

// A deleted contact, CRM company or deal leaves its activities unrelated
// (related_to null, updated_at moved, no activity event), in the deleting
// transaction.
void unlinkOnDeletion(rapport::Registry& registry, const std::string& type) {
  registry.onRecordDeleted(type, [type](rapport::Tx& tx, const std::string& id) {
    store::unlink(tx, type, id, rapport::nowMicros());
  });
}

class ActivitiesModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "activities",
            .version = "1.0.0",
            .description = "Activities: calls, meetings, e-mails, tasks and notes.",
            .dependencies = {},
            .optional = {"contacts", "companies", "deals"}};
  }

  void setup(rapport::Host& host, rapport::Registry& registry) override {
    routes_ = std::make_unique<ActivitiesRoutes>(host);

    for (rapport::Migration& migration : activities::migrations()) {
      registry.migration(std::move(migration));
    }
    registry.eventType("crm.activity.created", "An activity was created.");
    registry.eventType("crm.activity.updated",
                       "An activity was updated or reopened (status back to pending).");
    registry.eventType("crm.activity.completed", "An activity was completed.");
    registry.eventType("crm.activity.deleted", "An activity was deleted.");
    // Other modules may check an activity through the record directory
    // (exists, key-share-locking it on PostgreSQL for a reference about to be
    // written) or read it as GET shows it (fetch).
    registry.recordType(
        "activity",
        {.exists = &store::exists,
         .fetch = [](rapport::Queryable& db, const std::string& companyId, const std::string& id,
                     rapport::RecordLock lock) -> std::optional<rapport::Json> {
           const auto row = store::find(db, companyId, id, lock);
           if (!row) return std::nullopt;
           return activityJson(*row);
         },
         .path = "/crm/activities/{id}",
         .query = activitiesQuery()});

    registry.route("GET", "/crm/activities", [this](const Request& r) { return routes_->list(r); });
    registry.route("POST", "/crm/activities/search",
                   [this](const Request& r) { return routes_->search(r); });
    registry.route("POST", "/crm/activities",
                   [this](const Request& r) { return routes_->create(r); });
    registry.route("GET", "/crm/activities/{id}",
                   [this](const Request& r) { return routes_->get(r); });
    registry.route("PATCH", "/crm/activities/{id}",
                   [this](const Request& r) { return routes_->update(r); });
    registry.route("DELETE", "/crm/activities/{id}",
                   [this](const Request& r) { return routes_->remove(r); });
    registry.route("POST", "/crm/activities/{id}/complete",
                   [this](const Request& r) { return routes_->complete(r); });
    registry.route("POST", "/crm/activities/{id}/reopen",
                   [this](const Request& r) { return routes_->reopen(r); });

    // Links to other modules' records exist only while their module is
    // enabled (checked once, here): the sub-lists and the unlinking. Without
    // it, a related_to of that type answers 422 (ActivitiesValidation).
    if (host.moduleEnabled("contacts")) {
      registry.route("GET", "/crm/contacts/{id}/activities", [this](const Request& r) {
        return routes_->listOfRelated(r, "contact", "Contact not found.");
      });
      unlinkOnDeletion(registry, "contact");
    }
    if (host.moduleEnabled("companies")) unlinkOnDeletion(registry, "company");
    if (host.moduleEnabled("deals")) {
      registry.route("GET", "/crm/deals/{id}/activities", [this](const Request& r) {
        return routes_->listOfRelated(r, "deal", "Deal not found.");
      });
      unlinkOnDeletion(registry, "deal");
    }
    describeActivitiesRoutes(registry, {.contacts = host.moduleEnabled("contacts"),
                                        .deals = host.moduleEnabled("deals")});
    registry.batch("/crm/activities", {});
  }

 private:
  std::unique_ptr<ActivitiesRoutes> routes_;  // used by the route handlers until stop()
};

}  // namespace
}  // namespace activities

RAPPORT_MODULE(activities::ActivitiesModule, "activities", "1.0.0")
