#include "SchemaSnapshot.h"

#include <algorithm>

namespace rapport::test::listing {
namespace {

std::string oneSpaced(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string orNull(const Value& value) {
  return value.isNull() ? "NULL" : value.asString();
}

void sqliteSchema(Queryable& db, std::vector<std::string>& out) {
  const Result objects = db.query(
      "SELECT type, name, tbl_name, sql FROM sqlite_master "
      "WHERE name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'");
  for (const Row& object : objects) {
    const std::string type = object.str("type");
    const std::string name = object.str("name");
    if (type != "table") {
      out.push_back(type + " " + name + " on " + object.str("tbl_name") + ": " +
                    oneSpaced(object.str("sql")));
      continue;
    }
    // A virtual table (FTS5) is its SQL; its columns are the module's.
    if (object.str("sql").starts_with("CREATE VIRTUAL TABLE")) {
      out.push_back("virtual table " + name + ": " + oneSpaced(object.str("sql")));
      continue;
    }
    for (const Row& column :
         db.query("SELECT name, type, \"notnull\" AS not_null, dflt_value, pk, hidden "
                  "FROM pragma_table_xinfo(?)",
                  {name})) {
      out.push_back("column " + name + "." + column.str("name") + " " + column.str("type") +
                    (column.i64("not_null") ? " NOT NULL" : "") + " default " +
                    orNull(column["dflt_value"]) + " pk " + column.str("pk") + " hidden " +
                    column.str("hidden"));
    }
    // The automatic indexes of PRIMARY KEY and UNIQUE (named after the
    // table's first name, which a rename keeps): by origin and columns.
    for (const Row& index :
         db.query("SELECT name, \"unique\" AS is_unique, origin FROM pragma_index_list(?) "
                  "WHERE origin <> 'c'",
                  {name})) {
      std::string columns;
      for (const Row& column :
           db.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", {index.str("name")})) {
        columns += column.str("name") + ",";
      }
      out.push_back("key " + name + " " + index.str("origin") + " unique " +
                    index.str("is_unique") + " (" + columns + ")");
    }
  }
}

void postgresqlSchema(Queryable& db, std::vector<std::string>& out) {
  for (const Row& column :
       db.query("SELECT table_name, column_name, data_type, is_nullable, column_default, "
                "is_generated, generation_expression FROM information_schema.columns "
                "WHERE table_schema = current_schema() AND table_name <> 'schema_migrations'")) {
    out.push_back("column " + column.str("table_name") + "." + column.str("column_name") + " " +
                  column.str("data_type") + " nullable " + column.str("is_nullable") + " default " +
                  orNull(column["column_default"]) + " generated " + column.str("is_generated") +
                  " " + orNull(column["generation_expression"]));
  }
  for (const Row& index :
       db.query("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
                "AND tablename <> 'schema_migrations'")) {
    out.push_back("index " + index.str("indexname") + ": " + index.str("indexdef"));
  }
  for (const Row& constraint : db.query("SELECT conrelid::regclass::text AS on_table, conname, "
                                        "pg_get_constraintdef(oid) AS def FROM pg_constraint "
                                        "WHERE connamespace = current_schema()::regnamespace "
                                        "AND conrelid::regclass::text <> 'schema_migrations'")) {
    out.push_back("constraint " + constraint.str("on_table") + "." + constraint.str("conname") +
                  ": " + constraint.str("def"));
  }
  for (const Row& trigger : db.query("SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger "
                                     "WHERE NOT tgisinternal")) {
    out.push_back("trigger " + trigger.str("tgname") + ": " + trigger.str("def"));
  }
  for (const Row& function : db.query(
           "SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
           "WHERE l.lanname = 'plpgsql' AND p.pronamespace = current_schema()::regnamespace")) {
    out.push_back("function " + function.str("proname") + ": " + function.str("prosrc"));
  }
}

}  // namespace

std::vector<std::string> schemaOf(Queryable& db) {
  std::vector<std::string> out;
  if (db.dialect() == Dialect::SQLite) {
    sqliteSchema(db, out);
  } else {
    postgresqlSchema(db, out);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace rapport::test::listing
