// What the API document says about the activities routes (api_doc.h).
#pragma once

#include "rapport/module.h"

namespace activities {

// The sub-lists setup() registered besides the module's own routes.
struct RelatedLists {
  bool contacts = false;  // GET /crm/contacts/{id}/activities
  bool deals = false;     // GET /crm/deals/{id}/activities
};

void describeActivitiesRoutes(rapport::Registry& registry, RelatedLists lists);

}  // namespace activities
