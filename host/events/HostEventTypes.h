// The event types the host itself owns (module "host" in the catalogue, GET
// /v1/webhooks/events): those of changes no single module makes. Custom
// field definitions (decisions §14, rapport/custom_fields.h) are served by
// the SDK's record engine inside whichever module opts in, so their events
// are the host's: declared once, whichever record types are enabled, and
// refused to a module that declares one (EventBus::declare).
#pragma once

#include "events/EventBus.h"

namespace rapport::host {

// The module name the host's types carry in the catalogue and the log.
inline constexpr const char* kHostEventOwner = "host";

// crm.field.created, crm.field.updated, crm.field.deleted. Call at
// start-up, before any module is set up.
void declareHostEventTypes(EventBus& bus);

}  // namespace rapport::host
