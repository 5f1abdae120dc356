#include "accounts/TokenJson.h"

#include "rapport/time.h"

namespace rapport::host::accounts {

Json tokenJson(const IssuedToken& issued) {
  return Json::object({{"token", issued.token},
                       {"token_type", "Bearer"},
                       {"expires_in", issued.expiresIn},
                       {"expires_at", rapport::isoTimestamp(issued.expiresAt)}});
}

}  // namespace rapport::host::accounts
