// The API document's description of the accounts routes (GET /v1/openapi.json):
// sign-up and sign-in, sessions, the profile, the caller's companies and their
// members, password reset, two-factor and social login.
#pragma once

#include "rapport/module.h"

namespace rapport::host::accounts {

// Registers the accounts schemas and describes every accounts route. Call
// once every accounts route is registered (Registry::describe refuses a
// route that does not exist yet).
void describeAccountsRoutes(rapport::Registry& registry);

}  // namespace rapport::host::accounts
