-- The PostgreSQL limit of a contact create (issue 25): a pgbench script with
-- the statements one `POST /v1/crm/contacts` runs in rapportd, in its order,
-- in one transaction (bench/limits/README.md lists them with the code that
-- issues each). Run on a database `rapportd migrate` made, so the indexes
-- (the trigram GIN index on search_text included), the counter triggers and
-- the deferred trigger that numbers the event at commit are the real ones:
--
--   pgbench -n -M prepared -r -c 32 -j 2 -T 10 -D companies=1 -f contact_create.sql URL
--
-- -M prepared: rapportd's statements are prepared too (its statement cache).
-- companies: each transaction writes for one of that many companies,
-- comp_limit1 .. comp_limitN, at random (1: every create waits on the same
-- event_sequences row at commit, as one busy tenant does).
-- Differences from rapportd, none of which changes the work: the literals
-- here are parameters there; created_at is the server's clock here, the
-- request's there; the event's data is a fixed contact of the same size.
\set company random(1, :companies)
\set n random(1, 999999999999999)
BEGIN;
SELECT pg_advisory_xact_lock_shared(hashtext('custom_fields' || chr(58) || 'comp_limit' || CAST(:company AS text) || chr(58) || 'contact'));
SELECT id, record_type, field_key, label, type, description, required, is_unique, options, default_value, target, created_at, updated_at FROM custom_field_definitions WHERE company_id = 'comp_limit' || CAST(:company AS text) AND record_type = 'contact' AND deleted_at IS NULL ORDER BY created_at, field_key;
INSERT INTO contacts (id, company_id, name, email, phone, job_title, crm_company_id, owner_id, tags, notes, custom_fields, created_at, updated_at) VALUES ('cont_limit' || CAST(:n AS text), 'comp_limit' || CAST(:company AS text), 'New Contact limit-' || CAST(:n AS text), 'new.limit-' || CAST(:n AS text) || '@bench.example', '+44 20 7946 0000', 'Buyer', NULL, NULL, '["lead","bench"]', NULL, '{}', (extract(epoch FROM clock_timestamp()) * 1000000)::bigint, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint) RETURNING id, name, email, phone, job_title, crm_company_id, owner_id, tags, notes, created_at, updated_at, custom_fields;
INSERT INTO contact_tags (company_id, contact_id, tag_lower, created_at) SELECT r.company_id, r.id, t.tag, r.created_at FROM contacts r, (SELECT 'bench' AS tag UNION ALL SELECT 'lead') t WHERE r.company_id = 'comp_limit' || CAST(:company AS text) AND r.id = 'cont_limit' || CAST(:n AS text) ORDER BY t.tag;
INSERT INTO events (company_id, sequence, id, type, module, request_id, data, created_at, actor_type, actor_id) VALUES ('comp_limit' || CAST(:company AS text), 0 - nextval('events_provisional'), 'evt_limit' || CAST(:n AS text), 'crm.contact.created', 'contacts', 'limit' || CAST(:n AS text), '{"id":"cont_limitbenchcontact0000000000","name":"New Contact limit-000000000000000","email":"new.limit-000000000000000@bench.example","phone":"+44 20 7946 0000","job_title":"Buyer","company_id": null,"owner_id": null,"tags":["lead","bench"],"notes": null,"created_at":"2026-11-28T21.14.35.098525Z","updated_at":"2026-11-28T21.14.35.098525Z","custom_fields":{}}', (extract(epoch FROM clock_timestamp()) * 1000000)::bigint, 'user', 'user_limitbenchowner000000000');
SELECT s.webhook_id AS webhook_id, w.is_active AS is_active FROM webhook_subscriptions s JOIN webhooks w ON w.company_id = s.company_id AND w.id = s.webhook_id WHERE s.company_id = 'comp_limit' || CAST(:company AS text) AND s.event = 'crm.contact.created' ORDER BY s.webhook_id FOR SHARE OF w;
COMMIT;
