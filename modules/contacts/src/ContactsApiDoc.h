// What the API document says about the contacts routes (api_doc.h).
#pragma once

#include "rapport/module.h"

namespace contacts {

// Describes the routes setup() registered; `companiesEnabled`: whether
// GET /crm/companies/{id}/contacts was registered too.
void describeContactsRoutes(rapport::Registry& registry, bool companiesEnabled);

}  // namespace contacts
