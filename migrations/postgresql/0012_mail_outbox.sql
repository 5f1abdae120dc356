-- The mail outbox (docs/mail.md, host/mail/OutboxTable.h): every account mail
-- is written here, in the transaction of the request that causes it where
-- there is one, and sent by the "mail.send" job of whichever instance claims
-- it, so a restart, a crash or a second instance loses or repeats nothing.
-- The message itself (sender, recipient, MIME text: it carries a reset link
-- or a sign-in code) is sealed with the server's key (SecretBox, context
-- "mail:<id>") and blanked once the mail is finished; finished rows are
-- purged after 7 days.
CREATE TABLE mail_outbox (
  -- mail_..., also in the Message-ID and the log lines.
  id TEXT PRIMARY KEY,
  -- For the log lines: what the mail is for, and the recipient's domain
  -- (never the whole address, which is sealed).
  purpose TEXT NOT NULL,
  to_domain TEXT NOT NULL,
  message_sealed TEXT,
  -- queued (waiting for due_at), sending (claimed, before the point of no
  -- return), delivering (past it: never sent again), then sent, failed or
  -- unknown (its sender died while delivering).
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  due_at BIGINT NOT NULL,
  -- A sender's claim: its random id, and when another sender may take a
  -- 'sending' mail over (or resolve a 'delivering' one as unknown).
  holder TEXT,
  lease_until BIGINT,
  created_at BIGINT NOT NULL,
  finished_at BIGINT
);

-- The sender's claim (state, oldest due first) and the purge.
CREATE INDEX mail_outbox_due_idx ON mail_outbox (state, due_at);
CREATE INDEX mail_outbox_finished_idx ON mail_outbox (finished_at);
