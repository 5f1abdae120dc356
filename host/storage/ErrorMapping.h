// Turns driver exceptions (Poco, SQLite, libpq text) into rapport::DbError,
// classified so modules can answer 409 for a unique violation, 503 when busy.
#pragma once

#include <string>
#include <string_view>

#include "rapport/db.h"

namespace rapport::host {

// The kind a driver message denotes. PostgreSQL errors carry their SQLSTATE
// only inside the text ("State: 23505"), so classification reads the text.
DbError::Kind classifyDriverMessage(std::string_view message);

// True for a PostgreSQL deadlock (40P01) or serialization failure (40001):
// the server aborted the transaction to break a conflict with another, and
// running it again is the documented remedy.
bool isTransactionConflict(const DbError& error);

// Removes "password=..." from a message (Poco puts the connection string
// into some of its exceptions).
std::string redactSecrets(std::string message);

// The DbError for the exception being handled; call only inside a catch
// block. A DbError passes through unchanged.
DbError currentDbError();

}  // namespace rapport::host
