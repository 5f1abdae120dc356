// What the API document says about the pipelines routes (api_doc.h).
#pragma once

#include "rapport/module.h"

namespace pipelines {

void describePipelinesRoutes(rapport::Registry& registry);

}  // namespace pipelines
