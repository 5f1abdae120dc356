// An AccountsModule set up on a fresh database of the engine under test,
// with a hand-moved clock, called through the fake Registry (no HTTP). The
// route tests of members and profile build on it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "AccountsTestSupport.h"
#include "accounts/AccountsModule.h"
#include "ratelimit/MemoryAttemptLog.h"

namespace rapport::test::accounts {

class AccountsHarness {
 public:
  // A registered user and the token of its registration.
  struct User {
    std::string email;
    std::string token;
    std::string userId;
    std::string companyId;  // the company created at registration
  };

  AccountsHarness();
  ~AccountsHarness();

  // POST /auth/register with password "ann-s3cret-phrase"; the e-mail's local part
  // names the user and its company.
  User registerUser(const std::string& email);
  // The identity the pipeline would resolve for `token` (throws 401).
  rapport::Identity identityOf(const std::string& token);
  // Calls an authenticated route as the pipeline would, with path parameters
  // and query as given.
  rapport::Response call(const std::string& method, const std::string& path,
                         const std::string& token, rapport::Json body = rapport::Json(),
                         std::map<std::string, std::string> params = {},
                         std::map<std::string, std::string> query = {});
  // Calls a public route from `address`.
  rapport::Response callPublic(const std::string& method, const std::string& path,
                               rapport::Json body, const std::string& address = "192.0.2.10");
  // A token of `user` for `companyId` (as POST /auth/context issues it).
  std::string tokenFor(const User& user, const std::string& companyId);
  // Makes `user` a member of `companyId` straight in the database.
  void join(const User& user, const std::string& companyId, const std::string& role);
  std::int64_t count(const std::string& sql, const rapport::Params& params = {});
  // Runs one pass of the module's job `name` ("password-reset"), as the job
  // runner would; throws std::logic_error when no such job was registered.
  void runJob(const std::string& name);

  ManualClock time;
  std::unique_ptr<rapport::host::SqlDatabase> db;
  std::unique_ptr<rapport::host::accounts::TokenService> tokens;
  RecordingMailer mailer;  // what the module sent

 private:
  rapport::host::MemoryAttemptLog attempts_;
  FakeRegistry registry_;
  std::unique_ptr<FakeHost> host_;
  std::unique_ptr<rapport::host::accounts::AccountsModule> module_;
};

// True when `e` carries `text` on `field` (any message when `text` is empty).
bool hasFieldError(const rapport::Error& e, const std::string& field, const std::string& text);

}  // namespace rapport::test::accounts
