// One SQL text prepared on one session, run again and again with new
// parameter values (Connection keeps them in its StatementCache).
//
// Two implementations, one per engine:
//   - SqliteStatement: the SQLite C API, compiled once (Poco's SQLite
//     Statement compiles its SQL again on every re-execution);
//   - PostgresStatement: a Poco statement, prepared once on the server
//     (Poco's PostgreSQL executor keeps it prepared between executions).
//
// A statement is prepared per SQL text AND parameter type signature (see
// signatureOf): "x = ?" bound with an integer and with NULL are two
// statements (the PostgreSQL one binds each parameter in a slot of one C++
// type).
#pragma once

#include <string>

#include "rapport/db.h"

namespace rapport::host {

// One character per parameter: N(ull) B(ool) I(nt) D(ouble) S(tring).
std::string signatureOf(const Params& params);

class PreparedStatement {
 public:
  PreparedStatement() = default;
  virtual ~PreparedStatement() = default;
  PreparedStatement(const PreparedStatement&) = delete;
  PreparedStatement& operator=(const PreparedStatement&) = delete;

  // Runs with `params` (which must match the signature). Throws what the
  // driver throws (Connection classifies it).
  virtual Result execute(const Params& params) = 0;

  // Whether the statement may run again after execute() threw. A SQLite
  // statement is reset and stays usable; a Poco one is left mid-execution.
  virtual bool reusableAfterFailure() const = 0;

  // Called instead of destroying a statement that must never be touched
  // again (see PostgresStatement::abandon); true when it did so, and the
  // SQL must then not be cached on this session any more.
  virtual bool abandonIfUnsafe() { return false; }
};

}  // namespace rapport::host
