// Query plans in tests: run a store's own SQL and see which indexes the
// engine uses (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL). Used by
// the listing modules' plan tests (unit.contacts, unit.companies).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host_migrations.gen.h"
#include "rapport/db.h"
#include "storage/Migrator.h"
#include "storage/SqlDatabase.h"
#include "support/TestEnv.h"

namespace rapport::test {

// Explains every SELECT before running it, and keeps the plans.
class ExplainingQueryable final : public rapport::Queryable {
 public:
  explicit ExplainingQueryable(rapport::Queryable& inner) : inner_(inner) {}
  rapport::Dialect dialect() const override { return inner_.dialect(); }
  rapport::Result query(std::string_view sql, const rapport::Params& params) override {
    if (sql.rfind("SELECT", 0) == 0) {
      const char* explain =
          dialect() == rapport::Dialect::SQLite ? "EXPLAIN QUERY PLAN " : "EXPLAIN ";
      std::string plan;
      for (const rapport::Row& row : inner_.query(explain + std::string(sql), params)) {
        // SQLite: (id, parent, notused, detail); PostgreSQL: one "QUERY PLAN" column.
        plan += row.at(row.size() - 1).asString() + "\n";
      }
      plans.push_back(plan);
    }
    return inner_.query(sql, params);
  }
  std::int64_t exec(std::string_view sql, const rapport::Params& params) override {
    return inner_.exec(sql, params);
  }

  std::vector<std::string> plans;

 private:
  rapport::Queryable& inner_;
};

// A transaction that keeps every DELETE it runs (the write paths: a tag row
// delete runs on every create, update and delete), to explain afterwards.
class RecordingTx final : public rapport::Tx {
 public:
  explicit RecordingTx(rapport::Tx& inner) : inner_(inner) {}
  rapport::Dialect dialect() const override { return inner_.dialect(); }
  rapport::Result query(std::string_view sql, const rapport::Params& params) override {
    return inner_.query(sql, params);
  }
  std::int64_t exec(std::string_view sql, const rapport::Params& params) override {
    if (sql.rfind("DELETE", 0) == 0) deletes.emplace_back(std::string(sql), params);
    return inner_.exec(sql, params);
  }
  const std::string& companyId() const override { return inner_.companyId(); }
  void emit(const std::string& type, const rapport::Json& data) override {
    inner_.emit(type, data);
  }
  void afterCommit(std::function<void()> fn) override { inner_.afterCommit(std::move(fn)); }

  std::vector<std::pair<std::string, rapport::Params>> deletes;

 private:
  rapport::Tx& inner_;
};

inline bool has(const std::string& plan, const std::string& text) {
  return plan.find(text) != std::string::npos;
}

// A SQLite plan line that reads the whole of `table` ("SCAN contacts" or
// "SCAN contacts USING INDEX ..."), as opposed to a SEARCH on an index.
inline bool scansWholeTable(const std::string& plan, const std::string& table) {
  const std::string scan = "SCAN " + table;
  for (std::size_t at = plan.find(scan); at != std::string::npos; at = plan.find(scan, at + 1)) {
    const char next = at + scan.size() < plan.size() ? plan[at + scan.size()] : '\n';
    if (next == '\n' || next == ' ') return true;
  }
  return false;
}

// A filter of the list with one field set: where(&ContactFilter::tag, "vip").
template <typename Filter>
Filter where(std::optional<std::string> Filter::*field, std::string value) {
  Filter filter;
  filter.*field = std::move(value);
  return filter;
}

inline std::string describe(const std::vector<std::string>& plans) {
  std::string out;
  for (const std::string& plan : plans) out += "---\n" + plan;
  return out;
}

// A fresh database of the test's engine with the host's migrations and one
// module's applied, as rapportd applies them (the plan tests then seed it;
// SQLite's search triggers write to the host's search_queue). The test's
// target embeds the host's migrations:
//   rapport_embed_migrations(<target> host ${PROJECT_SOURCE_DIR}/migrations)
inline std::unique_ptr<rapport::host::SqlDatabase> migratedDatabase(
    const std::string& module, const std::vector<rapport::Migration>& migrations) {
  rapport::host::StorageOptions options;
  options.url = freshDatabaseUrl(module);
  auto opened = rapport::host::SqlDatabase::open(options);
  rapport::host::Migrator(*opened).apply(
      {{"host", rapport_generated::host::migrations()}, {module, migrations}});
  return opened;
}

}  // namespace rapport::test
