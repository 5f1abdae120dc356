// What the API document says about the deals routes (api_doc.h).
#pragma once

#include "DealsValidation.h"
#include "rapport/module.h"

namespace deals {

// Describes the routes setup() registered; `links` says which sub-lists
// (/crm/contacts/{id}/deals, /crm/companies/{id}/deals) were registered too.
void describeDealsRoutes(rapport::Registry& registry, Links links);

}  // namespace deals
