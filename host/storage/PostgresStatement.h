// A PreparedStatement on PostgreSQL: a Poco statement, prepared on the
// server at its first execution and executed by name afterwards (one round
// trip per execution).
//
// Binding: Poco binds parameters by reference (use(x) keeps &x and re-reads
// it on every execute), so each statement owns one slot per parameter at a
// fixed address and copies the call's values into the slots before each
// execution. A slot has one C++ type, hence a statement per signature. Poco
// sends every parameter as text without a type OID and the server infers
// each type from its context (BIGINT for "int_col = $1", BOOLEAN for a
// boolean column, BIGINT for LIMIT): comparisons and NULLs work; a parameter
// whose type cannot be inferred ("? IS NULL" alone) needs a CAST in the SQL.
#pragma once

#include <Poco/Data/Session.h>
#include <Poco/Data/Statement.h>

#include <memory>
#include <string>
#include <string_view>

#include "storage/PreparedStatement.h"
#include "storage/ResultCollector.h"

namespace rapport::host {

class PostgresStatement final : public PreparedStatement {
 public:
  // `sql` with "$n" placeholders already.
  PostgresStatement(Poco::Data::Session& session, std::string sql, std::string_view signature);
  ~PostgresStatement() override;

  Result execute(const Params& params) override;
  bool reusableAfterFailure() const override { return false; }

  // Poco 1.11's PostgreSQL executor frees its previous result before running
  // and keeps the stale pointer when the run fails: destroying or re-running
  // such a statement frees it twice (seen under valgrind). A statement that
  // failed after a success is therefore never touched again: its Poco
  // implementation is deliberately leaked.
  bool abandonIfUnsafe() override;

 private:
  struct Slot;
  class PocoStatement;

  void bind(std::string_view signature);
  void fill(const Params& params);
  std::int64_t affected(std::size_t executeCount, const std::vector<Row>& rows) const;

  std::string sql_;
  std::unique_ptr<Slot[]> slots_;  // fixed addresses: Poco holds references
  std::unique_ptr<PocoStatement> statement_;
  Poco::SharedPtr<PostgresResultCollector> collector_;
  bool isDataChange_ = false;
  bool succeeded_ = false;
};

}  // namespace rapport::host
