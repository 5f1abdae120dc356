// The host's outgoing mail, as the code that sends a message sees it.
//
// send() queues the message and returns at once: a slow or unreachable SMTP
// server never holds up the request that caused the message. The host's
// mailer (MailService, docs/mail.md) writes it to the outbox table
// (mail_outbox), sealed with the server's key; the "mail.send" job of any
// instance delivers it (SMTP when mail.smtp.host is set, otherwise an .eml
// file in mail.outbox), retries a failed send, and logs each outcome with
// the message's `purpose` and the recipient's domain, never its subject or
// body: a body may carry a reset token or a sign-in code. Queued mail
// survives a restart or a crash, and is sent once whatever the number of
// instances.
// Unit tests of code that sends use RecordingMailer
// (tests/unit/accounts/AccountsTestSupport.h).
//
// Threading: every member is thread-safe.
#pragma once

#include <string>
#include <utility>

#include "rapport/db.h"

namespace rapport::host::mail {

struct MailMessage {
  std::string to;       // one address
  std::string subject;  // without the product name; the mailer adds nothing
  std::string text;     // the plain-text part (always present)
  std::string html;     // the HTML part (empty: a text-only message)
  std::string purpose;  // what it is for, for logs: "password-reset", "two-factor-code"
};

class Mailer {
 public:
  virtual ~Mailer() = default;

  // Queues `message` for delivery and returns without waiting for it.
  // Throws std::invalid_argument for a recipient that is not one plain
  // address (no CR, LF, comma or angle bracket): the caller's bug, never
  // user input, since the recipient is read from the users table.
  virtual void send(MailMessage message) = 0;

  // Queues `message` as part of `tx`: it goes out only if `tx` commits, and
  // then surely (the reset token and its mail are one write). Throws like
  // send(). This default sends after the commit, for mailers that keep
  // nothing in the database (tests); MailService writes the outbox row in
  // `tx`.
  virtual void send(rapport::Tx& tx, MailMessage message) {
    tx.afterCommit([this, message = std::move(message)]() mutable { send(std::move(message)); });
  }
};

}  // namespace rapport::host::mail
