// activities: calls, meetings, e-mails, tasks and notes, each optionally
// related to a contact, a CRM company or a deal (docs/modules/activities.md).
// This file is the module's table of contents; the record itself is a
// declaration of the record engine (ActivitiesResource.cpp), which serves
// /crm/activities (list, search, create, get, update, delete, batch), the
// complete and reopen actions, and, while their modules are enabled, a
// contact's and a deal's activities (/crm/contacts/{id}/activities,
// /crm/deals/{id}/activities); stores activities with its indexes and
// search; emits crm.activity.created|updated|completed|deleted; owns the
// record type "activity"; and leaves the activities of a deleted contact,
// CRM company or deal unrelated.
#include "ActivitiesResource.h"
#include "rapport/sdk.h"

namespace activities {
namespace {

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
    const auto enabled = [&host](const std::string& module) { return host.moduleEnabled(module); };
    rapport::Resource(activitiesSpec(enabled)).install(host, registry);
  }
};

}  // namespace
}  // namespace activities

RAPPORT_MODULE(activities::ActivitiesModule, "activities", "1.0.0")
