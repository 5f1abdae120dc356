// Tables of calls for the suites that check who may call what (e2e.roles,
// e2e.api_keys): each row a method, a path, a body and the answer expected
// (status, and on an error the exact message, or any). A table runs with one
// token and fails once, naming every row answered otherwise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "e2e/common/Api.h"

namespace rapport::e2e {

struct Call {
  std::string method;
  std::string path;
  std::optional<Json> body;  // POST and PATCH; nullopt sends {}
  int status;                // what the caller of the table expects
  std::string message = "";  // an error's exact message; "" for any
};

// Sends `call` with `token` (and `headers`).
HttpResult send(HttpClient& client, const std::string& token, const Call& call,
                Headers headers = {});

// "" when `result` is what `call` expects (data on success; the error
// envelope and its message otherwise); else what went wrong.
std::string mismatch(const Call& call, const HttpResult& result);

// Runs every call of `table` as `token`, in order; fails once, naming every
// call whose answer was not the expected one.
void runTable(HttpClient& client, const std::string& token, const std::vector<Call>& table,
              const CppUnit::SourceLine& line);

// The rows of `table` expecting `status` with any message now expect `message`.
std::vector<Call> withMessage(std::vector<Call> table, int status, const std::string& message);

#define E2E_RUN_TABLE(client, token, table) \
  ::rapport::e2e::runTable((client), (token), (table), CPPUNIT_SOURCELINE())

}  // namespace rapport::e2e
