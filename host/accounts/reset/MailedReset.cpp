#include "accounts/reset/MailedReset.h"

#include "accounts/Clock.h"

namespace rapport::host::accounts::reset {

void recordMailedReset(Queryable& db, const std::string& userId, std::int64_t at) {
  db.exec("UPDATE users SET password_reset_at = ? WHERE id = ?", {at, userId});
}

bool resetByMailRecently(Queryable& db, const std::string& userId, std::int64_t now) {
  const std::int64_t since = now - kMailboxOnlyWindowSeconds * kMicrosPerSecond;
  return !db.query("SELECT 1 AS recent FROM users WHERE id = ? AND password_reset_at > ?",
                   {userId, since})
              .empty();
}

}  // namespace rapport::host::accounts::reset
