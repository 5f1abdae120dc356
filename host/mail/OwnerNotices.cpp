#include "mail/OwnerNotices.h"

#include <stdexcept>

#include "log/Log.h"
#include "rapport/roles.h"

namespace rapport::host::mail {
namespace {

constexpr const char* kPurpose = "owner-notice";

}  // namespace

void OwnerNotices::notify(const std::string& companyId, const std::string& subject,
                          const std::string& text) const {
  // Owners who can still sign in: a disabled user's mailbox may no longer be theirs.
  const Result owners = db_.query(
      "SELECT u.id AS user_id, u.email AS email FROM memberships m "
      "JOIN users u ON u.id = m.user_id "
      "WHERE m.company_id = ? AND m.role = ? AND u.disabled = ? "
      "ORDER BY m.created_at, m.user_id",
      {companyId, std::string(rapport::roleName(Role::Owner)), false});
  for (const Row& owner : owners) {
    try {
      mailer_.send(MailMessage{.to = owner.str("email"),
                               .subject = subject,
                               .text = text,
                               .html = {},
                               .purpose = kPurpose});
    } catch (const std::invalid_argument& e) {
      log::error("owner notice not sent", {{"purpose", kPurpose},
                                           {"company_id", companyId},
                                           {"user_id", owner.str("user_id")},
                                           {"error", e.what()}});
    }
  }
}

}  // namespace rapport::host::mail
