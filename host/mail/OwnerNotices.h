// Mail to the owners of a tenant company (Host::notifyOwners): notices an
// owner must act on, such as a webhook the webhooks module disabled.
//
// The owners are read at the time of the notice (memberships with role
// owner, users not disabled); each gets the same plain-text message through
// the host's Mailer, which queues it and logs the outcome (purpose
// "owner-notice", the recipient's domain only). Nothing here logs an address.
//
// Threading: notify() is safe from any thread (the Database and the Mailer are).
#pragma once

#include <string>

#include "mail/Mailer.h"
#include "rapport/db.h"

namespace rapport::host::mail {

class OwnerNotices {
 public:
  // Both outlive this object.
  OwnerNotices(Database& db, Mailer& mailer) : db_(db), mailer_(mailer) {}

  // Queues `subject` and `text` to every owner of `companyId`. Throws
  // rapport::DbError when the owners cannot be read; a message the mailer
  // refuses (std::invalid_argument: a line break in the subject, an empty
  // text, a stored address that is not one plain address) is logged with
  // the company and the user, and the other owners still get theirs.
  void notify(const std::string& companyId, const std::string& subject,
              const std::string& text) const;

 private:
  Database& db_;
  Mailer& mailer_;
};

}  // namespace rapport::host::mail
