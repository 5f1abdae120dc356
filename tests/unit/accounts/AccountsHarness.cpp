#include "AccountsHarness.h"

namespace rapport::test::accounts {

namespace acc = rapport::host::accounts;

namespace {

// One hasher for the whole run: each costs a hash at construction.
acc::PasswordHasher& sharedHasher() {
  static acc::PasswordHasher hasher;
  return hasher;
}

}  // namespace

AccountsHarness::AccountsHarness() {
  db = openMigratedDatabase();
  tokens = std::make_unique<acc::TokenService>(*db, acc::TokenOptions{}, time.clock());
  host_ = std::make_unique<FakeHost>(*db);
  module_ = std::make_unique<acc::AccountsModule>(acc::AccountsOptions{}, *tokens, sharedHasher(),
                                                  mailer, attempts_, time.clock());
  module_->setup(*host_, registry_);
}

AccountsHarness::~AccountsHarness() {
  module_.reset();
  host_.reset();
  tokens.reset();
  db.reset();
}

AccountsHarness::User AccountsHarness::registerUser(const std::string& email) {
  const std::string label = email.substr(0, email.find('@'));
  const rapport::Json body = rapport::Json::object({{"name", label},
                                                    {"email", email},
                                                    {"password", "ann-s3cret-phrase"},
                                                    {"password_confirmation", "ann-s3cret-phrase"},
                                                    {"company_name", label + " Ltd"}});
  const rapport::Json data = *callPublic("POST", "/auth/register", body).data;
  return {email, data["token"].asString(), data["user"]["id"].asString(),
          data["user"]["company_id"].asString()};
}

rapport::Identity AccountsHarness::identityOf(const std::string& token) {
  const auto identity = tokens->authenticate(token);
  if (!identity) throw rapport::Error::unauthorized();
  return *identity;
}

rapport::Response AccountsHarness::call(const std::string& method, const std::string& path,
                                        const std::string& token, rapport::Json body,
                                        std::map<std::string, std::string> params,
                                        std::map<std::string, std::string> query) {
  rapport::Request request = makeRequest(std::move(body), identityOf(token));
  request.pathParams = std::move(params);
  request.query = std::move(query);
  return registry_.call(method, path, std::move(request));
}

rapport::Response AccountsHarness::callPublic(const std::string& method, const std::string& path,
                                              rapport::Json body, const std::string& address) {
  return registry_.call(method, path, makeRequest(std::move(body), std::nullopt, address));
}

std::string AccountsHarness::tokenFor(const User& user, const std::string& companyId) {
  return tokens->issue(user.userId, companyId, false).token;
}

void AccountsHarness::join(const User& user, const std::string& companyId,
                           const std::string& role) {
  db->exec("INSERT INTO memberships (company_id, user_id, role, created_at) VALUES (?, ?, ?, ?)",
           {companyId, user.userId, role, time.now()});
}

std::int64_t AccountsHarness::count(const std::string& sql, const rapport::Params& params) {
  return db->query(sql, params).front().i64("n");
}

void AccountsHarness::runJob(const std::string& name) {
  // A pass that is never woken and never asked to stop.
  class OnePass : public rapport::JobContext {
   public:
    bool stopping() const override { return false; }
    bool wait(std::chrono::milliseconds) override { return false; }
    unsigned worker() const override { return 0; }
  } context;
  for (const rapport::Job& job : registry_.jobs) {
    if (job.name == name) return job.run(context);
  }
  throw std::logic_error("no job named " + name);
}

bool hasFieldError(const rapport::Error& e, const std::string& field, const std::string& text) {
  auto it = e.errors().find(field);
  if (it == e.errors().end()) return false;
  for (const std::string& message : it->second) {
    if (message == text) return true;
  }
  return text.empty();
}

}  // namespace rapport::test::accounts
