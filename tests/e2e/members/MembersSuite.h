// The server shared by the e2e.members suites, and the member calls they
// repeat.
#pragma once

#include <string>

#include "e2e/common/Api.h"

namespace rapport::e2e {

inline ServerProcess& membersServer() {
  static ServerProcess server(generousSettings());
  return server;
}

// POST /v1/company/members {email, role} with `token`.
inline HttpResult addMember(HttpClient& client, const std::string& token, const std::string& email,
                            const std::string& role) {
  return client.post("/v1/company/members", Json::object({{"email", email}, {"role", role}}),
                     bearer(token));
}

// PATCH /v1/company/members/{userId} {role} with `token`.
inline HttpResult changeRole(HttpClient& client, const std::string& token,
                             const std::string& userId, const std::string& role) {
  return client.patch("/v1/company/members/" + userId, Json::object({{"role", role}}),
                      bearer(token));
}

// DELETE /v1/company/members/{userId} with `token`.
inline HttpResult removeMember(HttpClient& client, const std::string& token,
                               const std::string& userId) {
  return client.del("/v1/company/members/" + userId, bearer(token));
}

// Adds `user` to `owner`'s company as `role` (asserting 201) and returns the
// user's token for that company (POST /auth/context).
inline std::string joinAs(HttpClient& client, const Account& owner, const Account& user,
                          const std::string& role) {
  E2E_ASSERT_DATA(201, addMember(client, owner.token, user.email, role));
  return switchContext(client, user.token, owner.companyId);
}

// GET /v1/company/members<query> with `token`; returns the user ids listed.
inline std::vector<std::string> memberIds(HttpClient& client, const std::string& token,
                                          const std::string& query = "") {
  return pluck(E2E_ASSERT_DATA(200, client.get("/v1/company/members" + query, bearer(token))),
               "user_id");
}

}  // namespace rapport::e2e
