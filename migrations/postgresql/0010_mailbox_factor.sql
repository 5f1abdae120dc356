-- A mailbox must not pass both factors (decisions §4): when the password was
-- last reset by e-mail (POST /auth/reset-password), in microseconds since
-- the epoch; NULL when never. For 24 hours after it, a two-factor login
-- refuses the e-mailed code (POST /auth/two-factor/resend): whoever read the
-- reset mail could read that code too.
ALTER TABLE users ADD COLUMN password_reset_at BIGINT;
