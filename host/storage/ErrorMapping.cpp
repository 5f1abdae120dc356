#include "storage/ErrorMapping.h"

#include <Poco/Data/DataException.h>
#include <Poco/Exception.h>

#include <algorithm>
#include <array>
#include <exception>

namespace rapport::host {
namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

template <std::size_t N>
bool containsAny(std::string_view text, const std::array<std::string_view, N>& parts) {
  for (const auto part : parts) {
    if (contains(text, part)) return true;
  }
  return false;
}

// Poco's PostgreSQL connector writes " State: 23505 " into its messages.
std::string_view sqlState(std::string_view message) {
  const auto at = message.find("State: ");
  if (at == std::string_view::npos || at + 12 > message.size()) return {};
  return message.substr(at + 7, 5);
}

bool isConnectionLoss(std::string_view message, std::string_view state) {
  static constexpr std::array<std::string_view, 8> kTexts = {"server closed the connection",
                                                             "no connection to the server",
                                                             "terminating connection",
                                                             "could not connect to server",
                                                             "Connection refused",
                                                             "connection to server at",
                                                             "SSL connection has been closed",
                                                             "Not connected"};
  return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03" ||
         containsAny(message, kTexts);
}

bool isUniqueViolation(std::string_view message, std::string_view state) {
  return state == "23505" || contains(message, "UNIQUE constraint failed") ||
         contains(message, "duplicate key value violates unique constraint");
}

bool isForeignKeyViolation(std::string_view message, std::string_view state) {
  return state == "23503" || contains(message, "FOREIGN KEY constraint failed") ||
         contains(message, "violates foreign key constraint");
}

// Lock waits that ran out: worth a retry later, like an exhausted pool.
// PostgreSQL's deadlock (40P01), serialization failure (40001) and
// lock_not_available (55P03) are the same kind of trouble.
// A read stopped at its deadline (Database::queryBounded: PostgreSQL's
// statement_timeout, 57014, or SQLite's progress handler, "interrupted")
// is too: the client may ask for less, or again later.
bool isBusy(std::string_view message, std::string_view state) {
  return state == "40P01" || state == "40001" || state == "55P03" || state == "57014" ||
         contains(message, "database is locked") || contains(message, "database table is locked") ||
         contains(message, "SQLite: interrupted");
}

DbError fromMessage(const std::string& message) {
  return DbError(classifyDriverMessage(message), redactSecrets(message));
}

}  // namespace

DbError::Kind classifyDriverMessage(std::string_view message) {
  const std::string_view state = sqlState(message);
  if (isConnectionLoss(message, state)) return DbError::Kind::ConnectionLost;
  if (isUniqueViolation(message, state)) return DbError::Kind::UniqueViolation;
  if (isForeignKeyViolation(message, state)) return DbError::Kind::ForeignKeyViolation;
  if (isBusy(message, state)) return DbError::Kind::Busy;
  return DbError::Kind::Other;
}

bool isTransactionConflict(const DbError& error) {
  const std::string_view state = sqlState(error.what());
  return state == "40P01" || state == "40001";
}

std::string redactSecrets(std::string message) {
  static constexpr std::string_view kKey = "password=";
  for (auto at = message.find(kKey); at != std::string::npos; at = message.find(kKey, at)) {
    const std::size_t value = at + kKey.size();
    std::size_t end = value;
    if (end < message.size() && message[end] == '\'') {
      // A quoted conninfo value: up to the closing quote, honouring \' escapes.
      for (++end; end < message.size() && message[end] != '\''; ++end) {
        if (message[end] == '\\') ++end;
      }
      end = std::min(end + 1, message.size());
    } else {
      while (end < message.size() && message[end] != ' ') ++end;
    }
    message.replace(value, end - value, "***");
    at = value + 3;
  }
  return message;
}

DbError currentDbError() {
  try {
    throw;
  } catch (const DbError& e) {
    return e;
  } catch (const Poco::Data::NotConnectedException&) {
    // Its text is the whole connection string: say what happened instead.
    return DbError(DbError::Kind::ConnectionLost, "not connected to the database");
  } catch (const Poco::Exception& e) {
    return fromMessage(e.displayText());
  } catch (const std::exception& e) {
    return fromMessage(e.what());
  } catch (...) {
    return DbError(DbError::Kind::Other, "unknown database driver failure");
  }
}

}  // namespace rapport::host
