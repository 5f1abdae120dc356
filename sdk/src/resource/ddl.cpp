// The record engine's storage: the SQL of a resource's table, its indexes
// and its search index, generated from the declaration for both engines
// (resource.h, "The table"), followed by the listing tables
// (listing_tables.h). The text is part of the SDK's promise: an applied
// migration is checksummed, so it changes only with the ABI major.
#include <set>

#include "internal.h"

namespace rapport {
namespace resource_detail {
namespace {

std::string columnType(const ResourceField& field, Dialect dialect) {
  switch (field.kind) {
    case FieldKind::Integer:
    case FieldKind::Money:
    case FieldKind::DateTime:
      return "BIGINT";
    case FieldKind::Boolean:
      return dialect == Dialect::SQLite ? "INTEGER" : "BOOLEAN";
    default:
      return "TEXT";
  }
}

// A default as an SQL literal, for a column added to rows already there.
std::string literal(const Json& value, Dialect dialect) {
  if (value.isBool()) {
    if (dialect == Dialect::SQLite) return value.asBool() ? "1" : "0";
    return value.asBool() ? "TRUE" : "FALSE";
  }
  if (value.isInt()) return std::to_string(value.asInt());
  std::string quoted = "'";
  for (const char c : value.asString()) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

// The field's column definitions ("crm_company_id TEXT"); `added`: to rows
// already there, so a column never null takes its default.
std::vector<std::string> columnDefinitions(const ResourceField& field, Dialect dialect,
                                           bool added) {
  if (field.kind == FieldKind::Related) {
    return {relatedTypeColumn(field) + " TEXT", relatedIdColumn(field) + " TEXT"};
  }
  std::string out = columnOf(field) + " " + columnType(field, dialect);
  if (field.kind == FieldKind::Tags) {
    out += " NOT NULL DEFAULT '[]'";  // a JSON array, as written; the tag table indexes it
  } else if (isNotNull(field)) {
    out += " NOT NULL";
    if (added) out += " DEFAULT " + literal(*field.defaultValue, dialect);
  }
  return {out};
}

// lower(name || char(10) || coalesce(sku, '')): what ?search= and `contains`
// on a searchable field match.
std::string searchText(const ResourceSpec& spec, Dialect dialect) {
  const std::string separator = dialect == Dialect::SQLite ? " || char(10) || " : " || E'\\n' || ";
  std::string joined;
  for (const ResourceField& field : spec.fields) {
    if (!field.searchable) continue;
    if (!joined.empty()) joined += separator;
    const std::string column = columnOf(field);
    joined += isNotNull(field) ? column : "coalesce(" + column + ", '')";
  }
  return "lower(" + joined + ")";
}

std::string createTable(const ResourceSpec& spec, Dialect dialect) {
  std::string sql = "CREATE TABLE " + spec.table + " (\n";
  // SQLite: seq is the rowid, named so that VACUUM never renumbers it (the
  // full-text index refers to rows by it).
  sql += dialect == Dialect::SQLite ? "  seq INTEGER PRIMARY KEY,\n  id TEXT NOT NULL UNIQUE,\n"
                                    : "  id TEXT PRIMARY KEY,\n";
  sql += "  company_id TEXT NOT NULL,\n";
  for (const ResourceField& field : spec.fields) {
    if (!field.since.empty()) continue;  // added by its own migration
    for (const std::string& column : columnDefinitions(field, dialect, false)) {
      sql += "  " + column + ",\n";
    }
  }
  sql += "  created_at BIGINT NOT NULL,\n  updated_at BIGINT NOT NULL";
  if (anySearchable(spec)) {
    sql += ",\n  search_text TEXT GENERATED ALWAYS AS (" + searchText(spec, dialect) + ") STORED";
  }
  return sql + "\n);\n";
}

// An index's name: the table and the column without "_id" or "_at"
// (contacts_crm_company, activities_scheduled, as contacts_created).
std::string indexName(const ResourceSpec& spec, std::string column) {
  if (column.ends_with("_id") || column.ends_with("_at")) column.resize(column.size() - 3);
  return spec.table + "_" + column;
}

std::string index(const std::string& name, const ResourceSpec& spec, const std::string& keys) {
  return "CREATE INDEX " + name + " ON " + spec.table + " (company_id, " + keys + ");\n";
}

// The unique index of a unique field (none for another).
std::string uniqueIndex(const ResourceSpec& spec, const ResourceField& field) {
  if (!field.unique) return "";
  const std::string column = columnOf(field);
  return "CREATE UNIQUE INDEX " + indexName(spec, column) + " ON " + spec.table + " (company_id, " +
         column + ");\n";
}

// The other indexes of one field: its order, its filters (resource.h, "The
// table").
std::string orderAndFilterIndexes(const ResourceSpec& spec, const ResourceField& field) {
  if (field.kind == FieldKind::Related) {
    if (!field.indexed) return "";  // a Related field is never filterable (declaration.cpp)
    return index(indexName(spec, columnOf(field)), spec,
                 relatedTypeColumn(field) + ", " + relatedIdColumn(field) + ", created_at, id");
  }
  std::string sql;
  const std::string column = columnOf(field);
  const std::string name = indexName(spec, column);
  if (field.sortable) {
    // Beside a unique index of the same name, the sort's is "<name>_sort".
    sql += index(field.unique ? name + "_sort" : name, spec, sortExpression(field) + ", id");
  }
  if (field.filterable && field.anyCase) {
    sql += index(name, spec, "lower(" + column + "), created_at, id");
  }
  if (field.indexed || (field.filterable && !field.anyCase)) {
    sql += index(field.anyCase ? name + "_eq" : name, spec, column + ", created_at, id");
  }
  return sql;
}

// The first migration's indexes: the unique field's first, the orders, then
// each field's: every list the declaration promises is served by an index.
std::string indexes(const ResourceSpec& spec) {
  std::string sql;
  if (const ResourceField* unique = uniqueField(spec); unique && unique->since.empty()) {
    sql += uniqueIndex(spec, *unique);
  }
  sql += index(spec.table + "_created", spec, "created_at, id");
  sql += index(spec.table + "_updated", spec, "updated_at, id");
  for (const ResourceField& field : spec.fields) {
    if (field.since.empty()) sql += orderAndFilterIndexes(spec, field);
  }
  return sql;
}

// A field of a later release: its columns added to the rows already there,
// then its indexes.
std::string addedFieldSql(const ResourceSpec& spec, const ResourceField& field, Dialect dialect) {
  std::string sql;
  for (const std::string& column : columnDefinitions(field, dialect, true)) {
    sql += "ALTER TABLE " + spec.table + " ADD COLUMN " + column + ";\n";
  }
  return sql + uniqueIndex(spec, field) + orderAndFilterIndexes(spec, field);
}

std::string sqliteSearch(const ResourceSpec& spec) {
  const std::string& table = spec.table;
  const std::string search = table + "_search";
  std::string columns;
  for (const ResourceField& field : spec.fields) {
    if (field.searchable) columns += (columns.empty() ? "" : ", ") + columnOf(field);
  }
  return "CREATE VIRTUAL TABLE " + search + " USING fts5(\n  search_text, content = '" + table +
         "', content_rowid = 'seq', tokenize = 'trigram');\n"
         "CREATE TRIGGER " +
         search + "_insert AFTER INSERT ON " + table +
         " BEGIN\n"
         "  INSERT INTO " +
         search +
         " (rowid, search_text) VALUES (new.seq, new.search_text);\n"
         "END;\n"
         "CREATE TRIGGER " +
         search + "_delete AFTER DELETE ON " + table +
         " BEGIN\n"
         "  INSERT INTO " +
         search + " (" + search +
         ", rowid, search_text)\n"
         "    VALUES ('delete', old.seq, old.search_text);\n"
         "END;\n"
         "CREATE TRIGGER " +
         search + "_update AFTER UPDATE OF " + columns + " ON " + table +
         " BEGIN\n"
         "  INSERT INTO " +
         search + " (" + search +
         ", rowid, search_text)\n"
         "    VALUES ('delete', old.seq, old.search_text);\n"
         "  INSERT INTO " +
         search +
         " (rowid, search_text) VALUES (new.seq, new.search_text);\n"
         "END;\n";
}

// SQLite's search index written once per write batch (host migration 0017,
// search_queue): the follow-up of a searchable table's first migration
// replaces its three search triggers, which wrote the FTS5 index row by row
// (one segment per savepoint, that is per request), by triggers that only
// note the changed rows in search_queue; the host's group commit indexes
// them before the batch's COMMIT (host/storage/SearchQueue.h). The first
// change of a row in a batch records what the index holds (INSERT OR
// IGNORE): nothing for a row created in the batch, its search_text for a
// row written before. The index itself is right already: nothing is
// re-indexed. PostgreSQL's GIN index is not affected (a comment only).
std::string sqliteSearchQueueTriggers(const ResourceSpec& spec) {
  const std::string& table = spec.table;
  const std::string search = table + "_search";
  std::string columns;
  for (const ResourceField& field : spec.fields) {
    if (field.searchable) columns += (columns.empty() ? "" : ", ") + columnOf(field);
  }
  const std::string queue =
      "  INSERT OR IGNORE INTO search_queue (tbl, rid, old_text, indexed)\n"
      "    VALUES ('" +
      table + "', ";
  return "DROP TRIGGER " + search + "_insert;\nDROP TRIGGER " + search + "_delete;\nDROP TRIGGER " +
         search + "_update;\nCREATE TRIGGER " + search + "_insert AFTER INSERT ON " + table +
         " BEGIN\n" + queue + "new.seq, NULL, 0);\nEND;\nCREATE TRIGGER " + search +
         "_delete AFTER DELETE ON " + table + " BEGIN\n" + queue +
         "old.seq, old.search_text, 1);\nEND;\nCREATE TRIGGER " + search +
         "_update AFTER UPDATE OF " + columns + " ON " + table + " BEGIN\n" + queue +
         "old.seq, old.search_text, 1);\nEND;\n";
}

Migration searchQueueMigration(const ResourceSpec& spec) {
  const std::string header = "-- Generated by rapport::Resource for " + spec.table +
                             ": the search index written once per write batch.\n";
  return Migration(spec.storage.migration + "_search_queue",
                   header + sqliteSearchQueueTriggers(spec),
                   header + "-- SQLite only: PostgreSQL's GIN index is kept by PostgreSQL.\n");
}

std::string postgresqlSearch(const ResourceSpec& spec) {
  return "CREATE INDEX " + spec.table + "_search ON " + spec.table +
         " USING gin (search_text gin_trgm_ops);\n";
}

std::string tableSql(const ResourceSpec& spec, Dialect dialect) {
  std::string sql = "-- Generated by rapport::Resource for " + spec.table +
                    " (rapport/resource.h, \"The table\").\n";
  const bool search = anySearchable(spec);
  // Trigram indexes for the search (a trusted extension: the database owner may create it).
  if (search && dialect == Dialect::PostgreSQL) sql += "CREATE EXTENSION IF NOT EXISTS pg_trgm;\n";
  sql += createTable(spec, dialect) + indexes(spec);
  if (search) sql += dialect == Dialect::SQLite ? sqliteSearch(spec) : postgresqlSearch(spec);
  return sql;
}

}  // namespace
}  // namespace resource_detail

using namespace resource_detail;

std::vector<Migration> Resource::migrations() const {
  const ResourceSpec& spec = *spec_;
  std::vector<Migration> out = tableMigrations(spec);
  // SQLite's search index per write batch: a follow-up migration of its own.
  if (!out.empty() && anySearchable(spec)) out.push_back(searchQueueMigration(spec));
  // Custom fields (since 9.0): the stored JSON column, on the engine's table
  // or the module's own.
  if (!spec.customFields.migration.empty()) {
    const std::string sql = "-- Generated by rapport::Resource for " + spec.table +
                            ": custom fields (custom_fields.h).\nALTER TABLE " + spec.table +
                            " ADD COLUMN custom_fields TEXT NOT NULL DEFAULT '{}';\n";
    out.emplace_back(spec.customFields.migration, sql, sql);
  }
  return out;
}

namespace resource_detail {

std::vector<Migration> tableMigrations(const ResourceSpec& spec) {
  const auto listing = listingOf(spec);
  if (!listing || spec.storage.migration.empty()) return {};
  const Migration tables = listingTablesMigration(*listing, spec.storage.migration);
  std::vector<Migration> out = {
      Migration(spec.storage.migration, tableSql(spec, Dialect::SQLite) + tables.sqlite,
                tableSql(spec, Dialect::PostgreSQL) + tables.postgresql, spec.storage.replaces)};
  // The fields added later, one migration per id, in id order.
  std::set<std::string> later;
  for (const ResourceField& field : spec.fields) {
    if (!field.since.empty()) later.insert(field.since);
  }
  for (const std::string& id : later) {
    std::string sqlite = "-- Generated by rapport::Resource for " + spec.table + ".\n";
    std::string postgresql = sqlite;
    for (const ResourceField& field : spec.fields) {
      if (field.since != id) continue;
      sqlite += addedFieldSql(spec, field, Dialect::SQLite);
      postgresql += addedFieldSql(spec, field, Dialect::PostgreSQL);
    }
    out.emplace_back(id, std::move(sqlite), std::move(postgresql));
  }
  // Since 10.1: the count slots chosen among the free ones (listing_tables.h).
  // Its id extends the table's, so it sorts right after it: a fresh database
  // replaces the functions the table's migration just wrote, and one
  // migrated before runs it once (an id the ledger lacks runs, whatever
  // applied ids sort after it).
  out.push_back(listingCountSlotsMigration(*listing, countSlotsMigrationId(spec)));
  return out;
}

std::string countSlotsMigrationId(const ResourceSpec& spec) {
  return spec.storage.migration + "_count_slots";
}

}  // namespace resource_detail
}  // namespace rapport
