#include "accounts/passwords/Rehash.h"

#include <exception>

namespace rapport::host::accounts::passwords {

bool upgradeHashIfNeeded(AccountsContext& ctx, const UserRecord& user,
                         const std::string& password) {
  if (!user.passwordHash || !ctx.hasher.needsRehash(*user.passwordHash)) return false;
  try {
    const std::string upgraded = ctx.hasher.hash(password);
    const std::int64_t changed =
        ctx.db.exec("UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?",
                    {upgraded, user.id, *user.passwordHash});
    if (changed == 1) ctx.log.info("password hash upgraded user_id=" + user.id);
    return changed == 1;
  } catch (const std::exception& e) {
    ctx.log.warn("password hash upgrade failed user_id=" + user.id + ": " + e.what());
    return false;
  }
}

}  // namespace rapport::host::accounts::passwords
