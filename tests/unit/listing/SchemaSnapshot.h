// A database's schema as sorted lines of text, to compare two databases
// built different ways (hand-written migrations against the SDK's listing
// tables; an upgraded database against a fresh one).
#pragma once

#include <string>
#include <vector>

#include "rapport/db.h"

namespace rapport::test::listing {

// Every table's columns (name, type, NOT NULL, default, key position; by
// name: column order carries no meaning, every statement names its columns),
// every index, constraint and trigger, and on PostgreSQL every PL/pgSQL
// function's source. The ledger table is left out.
//   SQLite: sqlite_master (virtual tables, indexes, triggers: their SQL with
//     runs of white space as one space), pragma_table_xinfo, pragma_index_list
//     and pragma_index_xinfo (the automatic indexes of keys);
//   PostgreSQL: information_schema.columns, pg_indexes, pg_constraint,
//     pg_trigger (pg_get_triggerdef) and pg_proc.
std::vector<std::string> schemaOf(Queryable& db);

// The lines joined by line breaks, for CPPUNIT_ASSERT_EQUAL's message.
std::string joined(const std::vector<std::string>& lines);

}  // namespace rapport::test::listing
