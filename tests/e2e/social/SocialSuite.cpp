#include "e2e/social/SocialSuite.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPCookie.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/NameValueCollection.h>
#include <Poco/StreamCopier.h>
#include <Poco/URI.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "e2e/reset/ResetMailReading.h"
#include "support/TestCa.h"
#include "support/TestEnv.h"
#include "support/smtp/Mailbox.h"

#ifndef RAPPORT_SOCIAL_IDP_DIR
#error "RAPPORT_SOCIAL_IDP_DIR must name the folder with idp.mjs and its node_modules"
#endif

namespace rapport::e2e::social {

namespace {

const char* const kProviders[] = {"google", "github", "microsoft"};

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Poco::Net::Context::Ptr browserContext() {
  static Poco::Net::Context::Ptr context = [] {
    Poco::Net::Context::Params params;
    params.verificationMode = Poco::Net::Context::VERIFY_RELAXED;
    params.loadDefaultCAs = false;
    params.caLocation = rapport::test::testCertificates().caFile;
    return Poco::Net::Context::Ptr(new Poco::Net::Context(Poco::Net::Context::CLIENT_USE, params));
  }();
  return context;
}

struct BrowserAnswer {
  int status = 0;
  std::string location;
  std::string body;
};

// A cookie jar keyed by (path, name), sent to requests under the path.
class Browser {
 public:
  BrowserAnswer request(const std::string& method, const std::string& url,
                        const std::string& form = {}) {
    const Poco::URI uri(url);
    Poco::Net::HTTPSClientSession session(uri.getHost(), uri.getPort(), browserContext());
    session.setTimeout(Poco::Timespan(20, 0));
    Poco::Net::HTTPRequest request(method, uri.getPathAndQuery(), Poco::Net::HTTPMessage::HTTP_1_1);
    std::string cookieHeader;
    for (const auto& [key, value] : cookies_) {
      if (uri.getPath().rfind(key.first, 0) != 0) continue;
      if (!cookieHeader.empty()) cookieHeader += "; ";
      cookieHeader += key.second + "=" + value;
    }
    if (!cookieHeader.empty()) request.set("Cookie", cookieHeader);
    request.set("User-Agent", "Rapport-e2e-browser");
    if (method == "POST") {
      request.setContentType("application/x-www-form-urlencoded");
      request.setContentLength(static_cast<std::streamsize>(form.size()));
    }
    session.sendRequest(request) << form;
    Poco::Net::HTTPResponse response;
    std::istream& in = session.receiveResponse(response);
    BrowserAnswer answer;
    answer.status = static_cast<int>(response.getStatus());
    Poco::StreamCopier::copyToString(in, answer.body);
    std::vector<Poco::Net::HTTPCookie> cookies;
    response.getCookies(cookies);
    for (const auto& cookie : cookies) {
      const std::string path = cookie.getPath().empty() ? "/" : cookie.getPath();
      if (cookie.getMaxAge() == 0) {
        cookies_.erase({path, cookie.getName()});
      } else {
        cookies_[{path, cookie.getName()}] = cookie.getValue();
      }
    }
    if (response.has("Location")) {
      const std::string location = response.get("Location");
      answer.location = location.rfind("/", 0) == 0
                            ? uri.getScheme() + "://" + uri.getAuthority() + location
                            : location;
    }
    return answer;
  }

 private:
  std::map<std::pair<std::string, std::string>, std::string> cookies_;
};

Json jsonOf(const HttpResult& result) {
  try {
    return result.json();
  } catch (const std::exception&) {
    throw std::runtime_error("not JSON: " + describe(result));
  }
}

}  // namespace

IdentityProvider& IdentityProvider::instance() {
  static IdentityProvider provider;
  return provider;
}

IdentityProvider::IdentityProvider() {
  dir_ = rapport::test::tempDirectory("idp");
  const rapport::test::Certificates& ca = rapport::test::testCertificates();
  Json clients = Json::array();
  for (const char* provider : kProviders) {
    const bool basic = std::string(provider) == "microsoft";
    clients.push(Json::object(
        {{"client_id", std::string("rapport-") + provider},
         {"client_secret", clientSecret(provider)},
         {"redirect_uris", Json::array().push(kCallback).push(kOtherCallback)},
         {"token_endpoint_auth_method", basic ? "client_secret_basic" : "client_secret_post"}}));
  }
  // A certificate the CA signed for another name.
  const rapport::test::Certificates wrong =
      rapport::test::signedBySameCa(ca, "wrong-example", "DNS:wrong.example");
  const std::string ready = dir_ + "/ready.json";
  const std::string config = dir_ + "/idp.json";
  {
    std::ofstream out(config);
    out << Json::object({{"cert", ca.certFile},
                         {"key", ca.keyFile},
                         {"wrongCert", wrong.certFile},
                         {"wrongKey", wrong.keyFile},
                         {"ready", ready},
                         {"clients", clients}})
               .dump();
  }
  const std::string logFile = dir_ + "/idp.log";
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = ::open(logFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    if (chdir(RAPPORT_SOCIAL_IDP_DIR) != 0) _exit(126);
    execlp("node", "node", "idp.mjs", config.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  pid_ = pid;
  const bool started = waitUntil(
      [&] {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          pid_ = 0;
          return true;  // exited: reported below
        }
        return access(ready.c_str(), F_OK) == 0;
      },
      std::chrono::seconds(30));
  if (!started || pid_ == 0) {
    throw std::runtime_error("the identity provider did not start:\n" + log());
  }
  const Json ports = Json::parse(readFile(ready));
  port_ = static_cast<int>(ports["port"].asInt());
  wrongPort_ = static_cast<int>(ports["wrongPort"].asInt());
}

IdentityProvider::~IdentityProvider() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

std::string IdentityProvider::url(const std::string& path) const {
  return "https://127.0.0.1:" + std::to_string(port_) + path;
}

std::string IdentityProvider::clientSecret(const std::string& provider) const {
  return "e2e-" + provider + "-client-secret-5f1c0b7e9a3d4c28";
}

std::string IdentityProvider::log() const {
  return readFile(dir_ + "/idp.log");
}

void IdentityProvider::putAccount(const Json& account) {
  const Poco::URI uri(url("/test/accounts"));
  Poco::Net::HTTPSClientSession session(uri.getHost(), uri.getPort(), browserContext());
  Poco::Net::HTTPRequest request("POST", uri.getPath(), Poco::Net::HTTPMessage::HTTP_1_1);
  const std::string body = account.dump();
  request.setContentType("application/json");
  request.setContentLength(static_cast<std::streamsize>(body.size()));
  session.sendRequest(request) << body;
  Poco::Net::HTTPResponse response;
  std::string ignored;
  Poco::StreamCopier::copyToString(session.receiveResponse(response), ignored);
  if (response.getStatus() != 204) throw std::runtime_error("putAccount failed: " + ignored);
}

std::string browseToRedirect(const std::string& authorizationUrl, const std::string& login) {
  Browser browser;
  std::string url = authorizationUrl;
  std::string trail;
  for (int step = 0; step < 12; ++step) {
    const BrowserAnswer answer = browser.request("GET", url);
    trail += "GET " + url + " -> " + std::to_string(answer.status) + "\n";
    if (answer.status == 200 && answer.body.find("name=\"login\"") != std::string::npos) {
      // The provider's sign-in form: submit it as the user would.
      const Poco::URI page(url);
      const BrowserAnswer posted = browser.request(
          "POST", page.getScheme() + "://" + page.getAuthority() + page.getPath() + "/login",
          "login=" + login);
      trail += "POST login -> " + std::to_string(posted.status) + "\n";
      if (posted.location.empty())
        throw std::runtime_error("login refused:\n" + trail + posted.body);
      url = posted.location;
    } else if (answer.status >= 300 && answer.status < 400 && !answer.location.empty()) {
      url = answer.location;
    } else {
      throw std::runtime_error("unexpected page:\n" + trail + answer.body);
    }
    if (url.rfind("https://app.example.test/", 0) == 0) return url;
  }
  throw std::runtime_error("too many redirects:\n" + trail);
}

std::map<std::string, std::string> queryOf(const std::string& url) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : Poco::URI(url).getQueryParameters()) out.emplace(name, value);
  return out;
}

ServerProcess::Settings socialSettings(ServerProcess::Settings extra) {
  const IdentityProvider& idp = IdentityProvider::instance();
  for (const char* provider : kProviders) {
    const std::string prefix = std::string("social.") + provider + ".";
    extra.emplace(prefix + "client_id", std::string("rapport-") + provider);
    extra.emplace(prefix + "client_secret", idp.clientSecret(provider));
    extra.emplace(prefix + "authorize_url", idp.url("/auth"));
    extra.emplace(prefix + "token_url", idp.url("/token"));
  }
  extra.emplace("social.google.userinfo_url", idp.url("/me"));
  extra.emplace("social.microsoft.userinfo_url", idp.url("/me"));
  extra.emplace("social.microsoft.token_auth", "basic");
  extra.emplace("social.github.userinfo_url", idp.url("/github/user"));
  extra.emplace("social.github.emails_url", idp.url("/github/user/emails"));
  extra.emplace("social.redirect_allowlist", std::string(kCallback) + ", " + kOtherCallback);
  extra.emplace("social.ca_file", rapport::test::testCertificates().caFile);
  extra.emplace("modules.enabled", "");
  // Every test comes from 127.0.0.1: the per-address mail and token limits
  // out of the way (their own tests set them), no pause between two mails.
  extra.emplace("auth.email_verification.max_requests", "10000");
  extra.emplace("auth.email_verification.max_attempts", "10000");
  extra.emplace("auth.reset.forgot_max_requests", "10000");
  extra.emplace("auth.reset.max_attempts", "10000");
  extra.emplace("auth.reset.min_interval", "0");
  return generousSettings(std::move(extra));
}

ServerProcess& socialServer() {
  static ServerProcess server(socialSettings());
  return server;
}

Json newProviderAccount(const std::string& provider, bool emailVerified, const std::string& email) {
  std::string id = provider == "github"
                       ? std::to_string(100000 + std::stoul(randomHex(6), nullptr, 16))
                       : provider + "-" + randomHex(12);
  Json account = Json::object({{"id", id},
                               {"email", email.empty() ? uniqueEmail(provider) : email},
                               {"email_verified", emailVerified},
                               {"name", "Ada " + randomHex(4)}});
  IdentityProvider::instance().putAccount(account);
  return account;
}

Started startLogin(HttpClient& client, const std::string& provider) {
  const HttpResult result = client.get("/v1/auth/social/" + provider + "/redirect");
  if (result.status != 200) throw std::runtime_error("redirect failed: " + describe(result));
  const Json data = jsonOf(result)["data"];
  return {data["state"].asString(), data["authorization_url"].asString()};
}

std::string codeFor(const Started& started, const std::string& login) {
  const std::string back = browseToRedirect(started.authorizationUrl, login);
  const auto query = queryOf(back);
  if (!query.count("code") || query.at("state") != started.state) {
    throw std::runtime_error("the provider came back without code or state: " + back);
  }
  return query.at("code");
}

HttpResult postCallback(HttpClient& client, const std::string& provider, const std::string& code,
                        const std::string& state) {
  return client.post("/v1/auth/social/" + provider + "/callback",
                     Json::object({{"code", code}, {"state", state}}));
}

HttpResult getCallback(HttpClient& client, const std::string& provider, const std::string& code,
                       const std::string& state) {
  // Codes and states are base64url: nothing to escape in a query.
  return client.get("/v1/auth/social/" + provider + "/callback?code=" + code + "&state=" + state);
}

HttpResult postExchange(HttpClient& client, const std::string& exchangeCode) {
  return client.post("/v1/auth/social/exchange", Json::object({{"exchange_code", exchangeCode}}));
}

HttpResult loginVariantA(HttpClient& client, const std::string& provider,
                         const std::string& login) {
  const Started started = startLogin(client, provider);
  return postCallback(client, provider, codeFor(started, login), started.state);
}

HttpResult loginVariantB(HttpClient& client, const std::string& provider,
                         const std::string& login) {
  const Started started = startLogin(client, provider);
  const HttpResult answer = getCallback(client, provider, codeFor(started, login), started.state);
  if (answer.status != 200) throw std::runtime_error("GET callback failed: " + describe(answer));
  return postExchange(client, jsonOf(answer)["data"]["exchange_code"].asString());
}

std::string opensslSha256(const std::string& text) {
  const std::string output = rapport::test::runTool("openssl", {"dgst", "-sha256"}, text);
  std::string hex = output.substr(output.rfind("= ") + 2);
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r')) hex.pop_back();
  return hex;
}

void execDatabase(const std::string& databaseUrl, const std::string& sql) {
  // RETURNING gives the statement a result set (queryDatabase reads one);
  // both engines accept it on UPDATE.
  if (queryDatabase(databaseUrl, sql + " RETURNING 1").empty())
    throw std::runtime_error("no row changed by: " + sql);
}

std::string outboxOf(const ServerProcess& server) {
  return server.workDir() + "/data/outbox";
}

std::string mailedToken(const ServerProcess& server, const std::string& email, std::size_t count) {
  const auto mails = rapport::test::smtp::waitForMailTo(outboxOf(server), email, count);
  if (mails.size() < count) throw std::runtime_error("no mail to " + email);
  return rapport::e2e::reset::resetTokenIn(mails.at(count - 1));
}

void verifyEmail(const ServerProcess& server, const Account& account) {
  HttpClient client(server.port());
  client.setToken(account.token);
  const HttpResult asked = client.post("/v1/auth/email/verification");
  if (asked.status != 200) throw std::runtime_error("verification: " + describe(asked));
  client.clearToken();
  const HttpResult verified = client.post(
      "/v1/auth/email/verify", Json::object({{"token", mailedToken(server, account.email)}}));
  if (verified.status != 200) throw std::runtime_error("verify: " + describe(verified));
}

namespace {

std::string firstColumnJoined(const std::vector<std::vector<std::string>>& rows) {
  std::string joined;
  for (const auto& row : rows) joined += (joined.empty() ? "" : ",") + row.at(0);
  return joined;
}

}  // namespace

std::string usersWithEmail(const ServerProcess& server, const std::string& email) {
  return firstColumnJoined(queryDatabase(
      server.databaseUrl(),
      "SELECT id FROM users WHERE email_lower = LOWER(" + sqlQuote(email) + ") ORDER BY id"));
}

std::string linkedProviders(const ServerProcess& server, const std::string& userId) {
  return firstColumnJoined(queryDatabase(server.databaseUrl(),
                                         "SELECT provider FROM social_identities WHERE user_id = " +
                                             sqlQuote(userId) + " ORDER BY provider"));
}

}  // namespace rapport::e2e::social
