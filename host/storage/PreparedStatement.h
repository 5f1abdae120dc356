// One SQL text prepared on one session, with its parameter storage.
//
// Binding: Poco binds parameters by reference (use(x) keeps &x and re-reads
// it on every execute), so each statement owns one slot per parameter at a
// fixed address and copies the call's values into the slots before each
// execution. A slot has one C++ type, so a statement is prepared per SQL text
// AND parameter type signature (see signatureOf): "x = ?" bound with an
// integer and with NULL are two statements. On PostgreSQL, Poco sends every
// parameter as text without a type OID and the server infers each type from
// its context (BIGINT for "int_col = $1", BOOLEAN for a boolean column,
// BIGINT for LIMIT): comparisons and NULLs work; a parameter whose type
// cannot be inferred ("? IS NULL" alone) needs a CAST in the SQL.
#pragma once

#include <Poco/Data/Session.h>
#include <Poco/Data/Statement.h>

#include <memory>
#include <string>
#include <string_view>

#include "rapport/db.h"
#include "storage/ResultCollector.h"

struct sqlite3;

namespace rapport::host {

// One character per parameter: N(ull) B(ool) I(nt) D(ouble) S(tring).
std::string signatureOf(const Params& params);

class PreparedStatement {
 public:
  // `sql` as the engine takes it ("$n" already rewritten on PostgreSQL);
  // `db` is the SQLite handle (null on PostgreSQL).
  PreparedStatement(Poco::Data::Session& session, Dialect dialect, sqlite3* db, std::string sql,
                    std::string_view signature);
  ~PreparedStatement();
  PreparedStatement(const PreparedStatement&) = delete;
  PreparedStatement& operator=(const PreparedStatement&) = delete;

  // Runs with `params` (which must match the signature). Throws what the
  // driver throws.
  Result execute(const Params& params);

  // Whether an execution ever succeeded (see abandon()).
  bool hasSucceeded() const { return succeeded_; }

  // Poco 1.11's PostgreSQL executor frees its previous result before running
  // and keeps the stale pointer when the run fails: destroying or re-running
  // such a statement frees it twice (seen under valgrind). A PostgreSQL
  // statement that failed after a success is therefore never touched again:
  // its Poco implementation is deliberately leaked.
  void abandon();

 private:
  struct Slot;
  class PocoStatement;

  void bind(std::string_view signature);
  void fill(const Params& params);
  std::int64_t affected(std::size_t executeCount, const std::vector<Row>& rows) const;

  Dialect dialect_;
  sqlite3* db_;
  std::string sql_;
  std::unique_ptr<Slot[]> slots_;  // fixed addresses: Poco holds references
  std::unique_ptr<PocoStatement> statement_;
  Poco::SharedPtr<ResultCollector> collector_;
  bool isDataChange_ = false;
  bool succeeded_ = false;
};

}  // namespace rapport::host
