#include "e2e/common/CallTable.h"

#include <stdexcept>

namespace rapport::e2e {

HttpResult send(HttpClient& client, const std::string& token, const Call& call, Headers headers) {
  const Json body = call.body.value_or(Json::object());
  const Headers sent = bearer(token, std::move(headers));
  if (call.method == "GET") return client.get(call.path, sent);
  if (call.method == "DELETE") return client.del(call.path, sent);
  if (call.method == "POST") return client.post(call.path, body, sent);
  if (call.method == "PATCH") return client.patch(call.path, body, sent);
  throw std::invalid_argument("no such method in the table: " + call.method);
}

std::string mismatch(const Call& call, const HttpResult& result) {
  try {
    if (call.status < 400) {
      assertData(call.status, result, CPPUNIT_SOURCELINE());
    } else {
      const Json error = assertError(call.status, result, CPPUNIT_SOURCELINE());
      if (!call.message.empty() && error["message"].asString() != call.message) {
        return "message is not \"" + call.message + "\": " + describe(result);
      }
    }
    return {};
  } catch (const CppUnit::Exception& e) {
    return e.what();
  }
}

void runTable(HttpClient& client, const std::string& token, const std::vector<Call>& table,
              const CppUnit::SourceLine& line) {
  std::string failures;
  for (const Call& call : table) {
    const std::string wrong = mismatch(call, send(client, token, call));
    if (!wrong.empty()) {
      failures += "\n" + call.method + " " + call.path + " (expected " +
                  std::to_string(call.status) + (call.message.empty() ? "" : " " + call.message) +
                  "): " + wrong;
    }
  }
  if (!failures.empty()) {
    CppUnit::Asserter::fail(CppUnit::Message("calls answered otherwise", failures), line);
  }
}

std::vector<Call> withMessage(std::vector<Call> table, int status, const std::string& message) {
  for (Call& call : table) {
    if (call.status == status && call.message.empty()) call.message = message;
  }
  return table;
}

}  // namespace rapport::e2e
