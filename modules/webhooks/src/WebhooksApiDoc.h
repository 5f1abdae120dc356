// What the API document says about the webhooks routes (api_doc.h).
#pragma once

#include "rapport/module.h"

namespace rapport::webhooks {

void describeWebhooksRoutes(Registry& registry);

}  // namespace rapport::webhooks
