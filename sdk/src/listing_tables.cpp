// The SQL of the tables a listing module declares (rapport/listing_tables.h).
// The texts are those the first-party modules wrote by hand before
// (modules/contacts/migrations 0002-0004, deals 0001-0002), so a database
// migrated by either way has the same schema (tests/unit/listing).
#include "rapport/listing_tables.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace rapport {
namespace {

constexpr std::string_view kSqliteCounts = R"sql(CREATE TABLE {counts} (
  company_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, slot)
);
CREATE TRIGGER {counts}_insert AFTER INSERT ON {records} BEGIN
  INSERT INTO {counts} (company_id, slot, total) VALUES (new.company_id, 0, 1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER {counts}_delete AFTER DELETE ON {records} BEGIN
  INSERT INTO {counts} (company_id, slot, total) VALUES (old.company_id, 0, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = total - 1;
END;
)sql";

constexpr std::string_view kTagTable = R"sql(CREATE TABLE {tags} (
  company_id TEXT NOT NULL,
  {record_column} TEXT NOT NULL,
  tag_lower TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY ({record_column}, tag_lower)
);
CREATE INDEX {tags}_ordered ON {tags} (company_id, tag_lower, created_at, {record_column});
CREATE TABLE {tag_counts} (
  company_id TEXT NOT NULL,
  tag_lower TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, tag_lower, slot)
);
)sql";

constexpr std::string_view kSqliteTagCounts =
    R"sql(CREATE TRIGGER {tag_counts}_insert AFTER INSERT ON {tags} BEGIN
  INSERT INTO {tag_counts} (company_id, tag_lower, slot, total)
    VALUES (new.company_id, new.tag_lower, 0, 1)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = total + 1;
END;
CREATE TRIGGER {tag_counts}_delete AFTER DELETE ON {tags} BEGIN
  INSERT INTO {tag_counts} (company_id, tag_lower, slot, total)
    VALUES (old.company_id, old.tag_lower, 0, -1)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = total - 1;
  DELETE FROM {tag_counts}
    WHERE company_id = old.company_id AND tag_lower = old.tag_lower AND slot = 0 AND total = 0;
END;
)sql";

constexpr std::string_view kPostgresqlCounts = R"sql(CREATE TABLE {counts} (
  company_id TEXT NOT NULL,
  slot SMALLINT NOT NULL,
  total BIGINT NOT NULL,
  PRIMARY KEY (company_id, slot)
);
CREATE FUNCTION {counts}_track() RETURNS trigger AS $$
DECLARE
  chosen SMALLINT := floor(random() * {slots});
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO {counts} AS c (company_id, slot, total) VALUES (NEW.company_id, chosen, 1)
      ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total + 1;
    RETURN NULL;
  END IF;
  INSERT INTO {counts} AS c (company_id, slot, total) VALUES (OLD.company_id, chosen, -1)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total - 1;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {counts}_track AFTER INSERT OR DELETE ON {records}
  FOR EACH ROW EXECUTE FUNCTION {counts}_track();
)sql";

constexpr std::string_view kPostgresqlTagCounts =
    R"sql(CREATE FUNCTION {tag_counts}_track() RETURNS trigger AS $$
DECLARE
  chosen SMALLINT := floor(random() * {slots});
  row_company TEXT;
  row_tag TEXT;
  delta BIGINT;
BEGIN
  IF TG_OP = 'INSERT' THEN
    row_company := NEW.company_id; row_tag := NEW.tag_lower; delta := 1;
  ELSE
    row_company := OLD.company_id; row_tag := OLD.tag_lower; delta := -1;
  END IF;
  INSERT INTO {tag_counts} AS c (company_id, tag_lower, slot, total)
    VALUES (row_company, row_tag, chosen, delta)
    ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = c.total + delta;
  DELETE FROM {tag_counts}
    WHERE company_id = row_company AND tag_lower = row_tag AND slot = chosen AND total = 0;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {tag_counts}_track AFTER INSERT OR DELETE ON {tags}
  FOR EACH ROW EXECUTE FUNCTION {tag_counts}_track();
)sql";

// listingCountSlotsMigration (since 10.1): the same functions, replaced.
// A writer takes one of the tenant's (and tag's) slot rows that no other
// transaction holds (FOR UPDATE SKIP LOCKED: the first free one, or one it
// holds already); only when every slot row is held (or there is none) does
// it add a row, at the slot of its server process id (unique among the
// server's live processes) or, when that slot row exists and is held, at a
// random one. So concurrent writers of one tenant never queue on a count
// row, bar a rare collision of the new slots (which waits, and counts
// right), and a tenant has about as many slot rows as it ever had
// concurrent writers. The count rows are kept; a tag's slot row that comes
// back to 0 is removed (tags come and go).
constexpr std::string_view kPostgresqlCountsSkipLocked =
    R"sql(CREATE OR REPLACE FUNCTION {counts}_track() RETURNS trigger AS $$
DECLARE
  row_company TEXT;
  delta BIGINT;
  chosen SMALLINT;
BEGIN
  IF TG_OP = 'INSERT' THEN
    row_company := NEW.company_id; delta := 1;
  ELSE
    row_company := OLD.company_id; delta := -1;
  END IF;
  SELECT slot INTO chosen FROM {counts}
    WHERE company_id = row_company LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF FOUND THEN
    UPDATE {counts} SET total = total + delta WHERE company_id = row_company AND slot = chosen;
    RETURN NULL;
  END IF;
  chosen := pg_backend_pid() % 32768;
  IF EXISTS (SELECT 1 FROM {counts} WHERE company_id = row_company AND slot = chosen) THEN
    chosen := floor(random() * 32768);
  END IF;
  INSERT INTO {counts} AS c (company_id, slot, total) VALUES (row_company, chosen, delta)
    ON CONFLICT (company_id, slot) DO UPDATE SET total = c.total + delta;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
)sql";

constexpr std::string_view kPostgresqlTagCountsSkipLocked =
    R"sql(CREATE OR REPLACE FUNCTION {tag_counts}_track() RETURNS trigger AS $$
DECLARE
  row_company TEXT;
  row_tag TEXT;
  delta BIGINT;
  chosen SMALLINT;
  remaining BIGINT;
BEGIN
  IF TG_OP = 'INSERT' THEN
    row_company := NEW.company_id; row_tag := NEW.tag_lower; delta := 1;
  ELSE
    row_company := OLD.company_id; row_tag := OLD.tag_lower; delta := -1;
  END IF;
  SELECT slot INTO chosen FROM {tag_counts}
    WHERE company_id = row_company AND tag_lower = row_tag LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF FOUND THEN
    UPDATE {tag_counts} SET total = total + delta
      WHERE company_id = row_company AND tag_lower = row_tag AND slot = chosen
      RETURNING total INTO remaining;
  ELSE
    chosen := pg_backend_pid() % 32768;
    IF EXISTS (SELECT 1 FROM {tag_counts}
               WHERE company_id = row_company AND tag_lower = row_tag AND slot = chosen) THEN
      chosen := floor(random() * 32768);
    END IF;
    INSERT INTO {tag_counts} AS c (company_id, tag_lower, slot, total)
      VALUES (row_company, row_tag, chosen, delta)
      ON CONFLICT (company_id, tag_lower, slot) DO UPDATE SET total = c.total + delta
      RETURNING total INTO remaining;
  END IF;
  IF remaining = 0 THEN
    DELETE FROM {tag_counts}
      WHERE company_id = row_company AND tag_lower = row_tag AND slot = chosen;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
)sql";

bool isIdentifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// "<record>" of "<record>_id", checked.
std::string recordName(const ListingTables& tables) {
  const std::string_view column = tables.recordColumn;
  if (!isIdentifier(tables.records)) {
    throw std::invalid_argument("listing tables: records \"" + tables.records +
                                "\" is not a lower-case SQL identifier");
  }
  if (!isIdentifier(column) || column.size() <= 3 || !column.ends_with("_id")) {
    throw std::invalid_argument("listing tables: recordColumn \"" + tables.recordColumn +
                                "\" is not a lower-case SQL identifier ending in _id");
  }
  return std::string(column.substr(0, column.size() - 3));
}

std::string replaceAll(std::string text, std::string_view key, const std::string& value) {
  for (std::size_t at = text.find(key); at != std::string::npos;
       at = text.find(key, at + value.size())) {
    text.replace(at, key.size(), value);
  }
  return text;
}

std::string fill(std::string_view sqlTemplate, const ListingTables& tables) {
  std::string out(sqlTemplate);
  out = replaceAll(std::move(out), "{counts}", tables.countsTable());
  out = replaceAll(std::move(out), "{tag_counts}", tables.tagCountsTable());
  out = replaceAll(std::move(out), "{tags}", tables.tagTable());
  out = replaceAll(std::move(out), "{records}", tables.records);
  out = replaceAll(std::move(out), "{record_column}", tables.recordColumn);
  return replaceAll(std::move(out), "{slots}", std::to_string(kPostgresqlCountSlots));
}

}  // namespace

std::string ListingTables::countsTable() const {
  return recordName(*this) + "_counts";
}

std::string ListingTables::tagTable() const {
  return recordName(*this) + "_tags";
}

std::string ListingTables::tagCountsTable() const {
  return recordName(*this) + "_tag_counts";
}

Migration listingTablesMigration(const ListingTables& tables, std::string id,
                                 std::vector<std::string> replaces) {
  const std::string header = "-- Generated by rapport::listingTablesMigration for " +
                             tables.records + " (rapport/listing_tables.h).\n";
  std::string sqlite = header + fill(kSqliteCounts, tables);
  std::string postgresql = header + fill(kPostgresqlCounts, tables);
  if (tables.tags) {
    sqlite += fill(kTagTable, tables) + fill(kSqliteTagCounts, tables);
    postgresql += fill(kTagTable, tables) + fill(kPostgresqlTagCounts, tables);
  }
  return Migration(std::move(id), std::move(sqlite), std::move(postgresql), std::move(replaces));
}

Migration listingCountSlotsMigration(const ListingTables& tables, std::string id) {
  const std::string header = "-- Generated by rapport::listingCountSlotsMigration for " +
                             tables.records + " (rapport/listing_tables.h).\n";
  // SQLite has one writer at a time and keeps slot 0: nothing to change.
  std::string sqlite = header + "-- SQLite: no change (one writer, slot 0).\n";
  std::string postgresql = header + fill(kPostgresqlCountsSkipLocked, tables);
  if (tables.tags) postgresql += fill(kPostgresqlTagCountsSkipLocked, tables);
  return Migration(std::move(id), std::move(sqlite), std::move(postgresql));
}

}  // namespace rapport
