// Harness: users and companies made through the API, and the event log.
#include <stdexcept>

#include "HarnessState.h"
#include "rapport/ids.h"
#include "rapport/testing.h"
#include "rapport/time.h"

namespace rapport::testing {
namespace {

// Long, unusual and the same for every user: never on the common-password list.
constexpr const char* kPassword = "harness-Passw0rd-for-tests";

// Throws std::runtime_error naming the step when `reply` is not `status`:
// the harness's own requests must work for any test to mean something.
const Reply& expect(const Reply& reply, int status, const std::string& step) {
  if (reply.status != status) {
    throw std::runtime_error("harness: " + step + " answered " + std::to_string(reply.status) +
                             " (expected " + std::to_string(status) + "): " + reply.text);
  }
  return reply;
}

}  // namespace

Harness::Harness(HarnessOptions options) {
  try {
    state_ = std::make_shared<HarnessState>(options);
  } catch (const std::runtime_error&) {
    throw;
  } catch (const std::exception& e) {
    // Settings the host refuses throw std::invalid_argument: one type for callers.
    throw std::runtime_error(e.what());
  }
}

Harness::~Harness() = default;

Client Harness::signUp() {
  const std::uint64_t number = state_->nextNumber();
  Client client = anonymous();
  client.email_ =
      "user" + std::to_string(number) + "-" + rapport::newId("").substr(0, 8) + "@harness.test";
  const Reply registered =
      expect(client.post("/v1/auth/register",
                         Json::object({{"name", "User " + std::to_string(number)},
                                       {"email", client.email_},
                                       {"password", kPassword},
                                       {"password_confirmation", kPassword},
                                       {"company_name", "Company " + std::to_string(number)}})),
             201, "POST /v1/auth/register");
  client.token_ = registered.data()["token"].asString();
  client.userId_ = registered.data()["user"]["id"].asString();
  client.companyId_ = registered.data()["user"]["company_id"].asString();
  client.role_ = Role::Owner;
  return client;
}

Client Harness::join(const Client& owner, Role role) {
  Client member = signUp();  // a user of their own company first
  expect(owner.post("/v1/company/members",
                    Json::object({{"email", member.email_},
                                  {"role", std::string(rapport::roleName(role))}})),
         201, "POST /v1/company/members");
  const Reply switched =
      expect(member.post("/v1/auth/context", Json::object({{"company_id", owner.companyId_}})), 200,
             "POST /v1/auth/context");
  member.token_ = switched.data()["token"].asString();
  member.companyId_ = owner.companyId_;
  member.role_ = role;
  return member;
}

Client Harness::anonymous() {
  Client client;
  client.state_ = state_;
  return client;
}

std::vector<Json> Harness::events(const Client& client) {
  // As the host's log readers do first: on PostgreSQL events are numbered
  // after their commit, by passes (the host's events/EventNumbering.h).
  if (dialect() == Dialect::PostgreSQL) database().query("SELECT events_number()");
  const Result rows = database().query(
      "SELECT type, module, data, sequence, request_id, created_at FROM events "
      "WHERE company_id = ? ORDER BY sequence",
      {client.companyId()});
  std::vector<Json> out;
  out.reserve(rows.size());
  for (const Row& row : rows) {
    out.push_back(Json::object({{"type", row.str("type")},
                                {"module", row.str("module")},
                                {"data", Json::parse(row.str("data"))},
                                {"sequence", row.i64("sequence")},
                                {"request_id", row.str("request_id")},
                                {"occurred_at", rapport::isoTimestamp(row.i64("created_at"))}}));
  }
  return out;
}

Dialect Harness::dialect() const {
  return state_->server().database().dialect();
}

Database& Harness::database() {
  return state_->server().database();
}

}  // namespace rapport::testing
