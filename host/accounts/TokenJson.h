// The API's token object (decisions §3): {token, token_type, expires_in,
// expires_at}. Callers add `user` or `company` as their endpoint requires.
#pragma once

#include "accounts/TokenService.h"
#include "rapport/json.h"

namespace rapport::host::accounts {

Json tokenJson(const IssuedToken& issued);

}  // namespace rapport::host::accounts
