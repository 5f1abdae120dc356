-- The PostgreSQL limit's event numbering (issue 25): rapportd numbers the
-- events of committed writes in passes (host/events/EventNumbering.h,
-- migration 0016), at most one pass in flight per instance, shared by every
-- write waiting for it. One pgbench client running this in a loop beside
-- contact_create.sql's clients is that: one pass after another, each
-- numbering what committed since the last.
SELECT events_number();
