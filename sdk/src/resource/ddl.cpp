// The record engine's storage: the SQL of a resource's table, its indexes
// and its search index, generated from the declaration for both engines
// (resource.h, "The table"), followed by the listing tables
// (listing_tables.h). The text is part of the SDK's promise: an applied
// migration is checksummed, so it changes only with the ABI major.
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

std::string columnDefinitions(const ResourceField& field, Dialect dialect) {
  if (field.kind == FieldKind::Related) {
    return "  " + relatedTypeColumn(field) + " TEXT,\n  " + relatedIdColumn(field) + " TEXT,\n";
  }
  std::string out = "  " + columnOf(field) + " " + columnType(field, dialect);
  if (field.kind == FieldKind::Tags) {
    out += " NOT NULL DEFAULT '[]'";  // a JSON array, as written; the tag table indexes it
  } else if (isNotNull(field)) {
    out += " NOT NULL";
  }
  return out + ",\n";
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
  for (const ResourceField& field : spec.fields) sql += columnDefinitions(field, dialect);
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

// The unique field, the orders, and the filters: every list the declaration
// promises is served by an index (resource.h, "The table").
std::string indexes(const ResourceSpec& spec) {
  std::string sql;
  if (const ResourceField* unique = uniqueField(spec)) {
    sql += "CREATE UNIQUE INDEX " + indexName(spec, columnOf(*unique)) + " ON " + spec.table +
           " (company_id, " + columnOf(*unique) + ");\n";
  }
  sql += index(spec.table + "_created", spec, "created_at, id");
  sql += index(spec.table + "_updated", spec, "updated_at, id");
  for (const ResourceField& field : spec.fields) {
    if (field.kind == FieldKind::Related) {
      if (field.filterable || field.indexed) {
        sql += index(indexName(spec, columnOf(field)), spec,
                     relatedTypeColumn(field) + ", " + relatedIdColumn(field) + ", created_at, id");
      }
      continue;
    }
    const std::string column = columnOf(field);
    const std::string name = indexName(spec, column);
    if (field.sortable && !field.unique) sql += index(name, spec, sortExpression(field) + ", id");
    if (field.filterable && field.anyCase) {
      sql += index(name, spec, "lower(" + column + "), created_at, id");
    }
    const bool exact = field.indexed || (field.filterable && !field.anyCase);
    if (exact) {
      sql += index(field.anyCase ? name + "_eq" : name, spec, column + ", created_at, id");
    }
  }
  return sql;
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

std::optional<Migration> Resource::migration() const {
  const auto listing = listingOf(*spec_);
  if (!listing || spec_->storage.migration.empty()) return std::nullopt;
  const Migration tables = listingTablesMigration(*listing, spec_->storage.migration);
  return Migration(spec_->storage.migration, tableSql(*spec_, Dialect::SQLite) + tables.sqlite,
                   tableSql(*spec_, Dialect::PostgreSQL) + tables.postgresql,
                   spec_->storage.replaces);
}

}  // namespace rapport
