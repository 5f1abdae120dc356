// The API keys' routes and schema in the API document (GET /v1/openapi.json).
#pragma once

#include "rapport/module.h"

namespace rapport::host::accounts::apikeys {

void describeApiKeyRoutes(rapport::Registry& registry);

}  // namespace rapport::host::accounts::apikeys
