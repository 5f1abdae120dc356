#include "accounts/social/ProviderClient.h"

#include <Poco/Base64Encoder.h>
#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/HTTPSClientSession.h>
#include <Poco/Net/IPAddress.h>
#include <Poco/Net/X509Certificate.h>
#include <Poco/URI.h>

#include <memory>
#include <sstream>

#include "accounts/social/FormEncoding.h"
#include "http/UrlCoding.h"
#include "net/TlsClient.h"
#include "rapport/json.h"
#include "rapport/validation.h"

namespace rapport::host::accounts::social {

namespace {

constexpr std::size_t kMaxAnswerBytes = 1024 * 1024;
constexpr const char* kUserAgent = "Rapport/1.0";

ProviderFailure unavailable(const std::string& why) {
  return ProviderFailure(ProviderFailure::Kind::Unavailable, why);
}
ProviderFailure rejected(const std::string& why) {
  return ProviderFailure(ProviderFailure::Kind::Rejected, why);
}

void verifyHostName(const Poco::Net::X509Certificate& certificate, const std::string& host) {
  if (!net::certificateMatchesHost(certificate, host)) {
    throw unavailable("TLS: certificate is not valid for " + host);
  }
}

// An HTTPS session whose every connection (TCP, then the TLS handshake,
// where the context verifies the chain) has the certificate checked against
// the URL's host name before the session writes a byte of the request.
class VerifiedSession : public Poco::Net::HTTPSClientSession {
 public:
  VerifiedSession(const std::string& host, Poco::UInt16 port, Poco::Net::Context::Ptr context)
      : HTTPSClientSession(host, port, std::move(context)) {}

 protected:
  void connect(const Poco::Net::SocketAddress& address) override {
    HTTPSClientSession::connect(address);
    verifyHostName(serverCertificate(), getHost());
  }
};

Json parseObject(const ProviderClient::Answer& answer, const std::string& what) {
  try {
    Json json = Json::parse(answer.body);
    if (json.isObject()) return json;
  } catch (const std::exception&) {
  }
  throw unavailable(what + " answered HTTP " + std::to_string(answer.status) +
                    " without a JSON object");
}

// 401 and 403 from a user-info endpoint: the access token was refused.
void checkUserinfoStatus(const ProviderClient::Answer& answer, const std::string& what) {
  if (answer.status == 200) return;
  if (answer.status == 401 || answer.status == 403)
    throw rejected(what + " refused the access token (HTTP " + std::to_string(answer.status) + ")");
  throw unavailable(what + " answered HTTP " + std::to_string(answer.status));
}

std::optional<std::string> stringMember(const Json& object, const char* key) {
  const Json* value = object.find(key);
  if (value == nullptr || !value->isString() || value->asString().empty()) return std::nullopt;
  return value->asString();
}

// A display name fit for users.name: valid UTF-8, at most 255 characters.
std::string cleanName(const std::optional<std::string>& name, const std::string& fallback) {
  std::string text = name ? rapport::trim(*name) : std::string();
  if (text.empty() || !rapport::isValidUtf8(text)) text = fallback;
  if (rapport::utf8Length(text) > 255) {
    std::size_t chars = 0;
    std::size_t i = 0;
    while (i < text.size() && chars < 255) {
      ++i;
      while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
      ++chars;
    }
    text.resize(i);
  }
  return text;
}

std::optional<std::string> cleanEmail(const std::optional<std::string>& email) {
  if (!email) return std::nullopt;
  const std::string text = rapport::trim(*email);
  if (!rapport::isValidEmail(text)) return std::nullopt;
  return text;
}

std::string localPart(const std::optional<std::string>& email) {
  if (!email) return "User";
  return email->substr(0, email->find('@'));
}

std::string base64(const std::string& bytes) {
  std::ostringstream out;
  Poco::Base64Encoder encoder(out, 0);
  encoder.rdbuf()->setLineLength(0);
  encoder << bytes;
  encoder.close();
  return out.str();
}

}  // namespace

ProviderClient::ProviderClient(const std::string& caFile, std::chrono::seconds timeout)
    : context_(net::clientTlsContext(caFile)), timeout_(timeout) {}

ProviderClient::Answer ProviderClient::call(const std::string& method, const std::string& url,
                                            const HeaderList& headers, const std::string& body) {
  const Poco::Timespan timeout(static_cast<long>(timeout_.count()), 0);
  Poco::URI uri;
  try {
    uri = Poco::URI(url);
  } catch (const Poco::Exception&) {
    throw unavailable("bad provider URL");
  }
  const std::string host = uri.getHost();
  try {
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    if (rapport::toLower(uri.getScheme()) == "https") {
      session = std::make_unique<VerifiedSession>(host, uri.getPort(), context_);
    } else {
      session = std::make_unique<Poco::Net::HTTPClientSession>(host, uri.getPort());
    }
    session->setTimeout(timeout, timeout, timeout);
    Poco::Net::HTTPRequest request(method, uri.getPathAndQuery(), Poco::Net::HTTPMessage::HTTP_1_1);
    request.setHost(host, uri.getPort());
    request.setKeepAlive(false);  // one request per connection
    request.set("User-Agent", kUserAgent);
    for (const auto& [name, value] : headers) request.set(name, value);
    if (!body.empty() || method == "POST")
      request.setContentLength(static_cast<std::streamsize>(body.size()));
    std::ostream& out = session->sendRequest(request);
    out.write(body.data(), static_cast<std::streamsize>(body.size()));
    Poco::Net::HTTPResponse response;
    std::istream& in = session->receiveResponse(response);
    Answer answer;
    answer.status = static_cast<int>(response.getStatus());
    char buffer[8192];
    while (in) {
      in.read(buffer, sizeof buffer);
      answer.body.append(buffer, static_cast<std::size_t>(in.gcount()));
      if (answer.body.size() > kMaxAnswerBytes) throw unavailable(host + " answered too much");
    }
    return answer;
  } catch (const ProviderFailure&) {
    throw;
  } catch (const Poco::TimeoutException&) {
    throw unavailable(host + " timed out");
  } catch (const Poco::Exception& e) {
    throw unavailable(host + ": " + e.displayText());
  }
}

std::string ProviderClient::exchangeCode(const ProviderConfig& provider, const std::string& code,
                                         const std::string& redirectUri,
                                         const std::string& codeVerifier) {
  FormFields form = {{"grant_type", "authorization_code"},
                     {"code", code},
                     {"redirect_uri", redirectUri},
                     {"code_verifier", codeVerifier},
                     {"client_id", provider.clientId}};
  HeaderList headers = {{"Accept", "application/json"},
                        {"Content-Type", "application/x-www-form-urlencoded"}};
  if (provider.tokenAuth == TokenAuth::Post) {
    form.emplace_back("client_secret", provider.clientSecret);
  } else {
    // RFC 6749 §2.3.1: both halves form-encoded before Basic encoding.
    headers.emplace_back("Authorization", "Basic " + base64(percentEncode(provider.clientId) + ":" +
                                                            percentEncode(provider.clientSecret)));
  }
  return accessTokenFrom(call("POST", provider.tokenUrl, headers, formEncode(form)));
}

ProviderProfile ProviderClient::fetchProfile(const ProviderConfig& provider,
                                             const std::string& accessToken) {
  const HeaderList headers = {{"Accept", "application/json"},
                              {"Authorization", "Bearer " + accessToken}};
  if (provider.shape == ProfileShape::Oidc)
    return oidcProfileFrom(call("GET", provider.userinfoUrl, headers));
  const Answer user = call("GET", provider.userinfoUrl, headers);
  checkUserinfoStatus(user, "the user endpoint");
  return githubProfileFrom(user, call("GET", provider.emailsUrl, headers));
}

std::string accessTokenFrom(const ProviderClient::Answer& answer) {
  // 400 invalid_grant (RFC 6749 §5.2), 401 invalid_client: the code or the
  // client was refused. GitHub answers 200 with {"error": ...}.
  if (answer.status == 400 || answer.status == 401)
    throw rejected("the token endpoint refused the code (HTTP " + std::to_string(answer.status) +
                   ")");
  if (answer.status != 200)
    throw unavailable("the token endpoint answered HTTP " + std::to_string(answer.status));
  const Json json = parseObject(answer, "the token endpoint");
  if (const auto error = stringMember(json, "error"))
    throw rejected("the token endpoint refused the code (" + error->substr(0, 64) + ")");
  const auto token = stringMember(json, "access_token");
  if (!token) throw rejected("the token endpoint gave no access token");
  return *token;
}

ProviderProfile oidcProfileFrom(const ProviderClient::Answer& userinfo) {
  checkUserinfoStatus(userinfo, "the userinfo endpoint");
  const Json json = parseObject(userinfo, "the userinfo endpoint");
  const auto subject = stringMember(json, "sub");
  if (!subject) throw unavailable("the userinfo endpoint gave no sub");
  ProviderProfile profile;
  profile.subject = *subject;
  profile.email = cleanEmail(stringMember(json, "email"));
  // OIDC Core §5.1: a boolean; some providers send the string "true".
  const Json& verified = json["email_verified"];
  profile.emailVerified =
      profile.email && ((verified.isBool() && verified.asBool()) ||
                        (verified.isString() && rapport::toLower(verified.asString()) == "true"));
  profile.name = cleanName(stringMember(json, "name"), localPart(profile.email));
  return profile;
}

ProviderProfile githubProfileFrom(const ProviderClient::Answer& user,
                                  const ProviderClient::Answer& emails) {
  checkUserinfoStatus(user, "the user endpoint");
  const Json json = parseObject(user, "the user endpoint");
  ProviderProfile profile;
  const Json& id = json["id"];
  if (id.isInt()) {
    profile.subject = std::to_string(id.asInt());
  } else if (id.isString() && !id.asString().empty()) {
    profile.subject = id.asString();
  } else {
    throw unavailable("the user endpoint gave no id");
  }
  const auto login = stringMember(json, "login");
  // The verified primary address; else any verified one; else the primary
  // (or the public profile address), unverified.
  checkUserinfoStatus(emails, "the e-mails endpoint");
  Json list;
  try {
    list = Json::parse(emails.body);
  } catch (const std::exception&) {
  }
  if (!list.isArray()) throw unavailable("the e-mails endpoint gave no list");
  std::optional<std::string> primary;
  std::optional<std::string> verifiedPrimary;
  std::optional<std::string> anyVerified;
  for (const Json& entry : list.asArray()) {
    const auto address = cleanEmail(stringMember(entry, "email"));
    if (!address) continue;
    const bool isPrimary = entry["primary"].isBool() && entry["primary"].asBool();
    const bool isVerified = entry["verified"].isBool() && entry["verified"].asBool();
    if (isPrimary && !primary) primary = address;
    if (isPrimary && isVerified && !verifiedPrimary) verifiedPrimary = address;
    if (isVerified && !anyVerified) anyVerified = address;
  }
  if (verifiedPrimary || anyVerified) {
    profile.email = verifiedPrimary ? verifiedPrimary : anyVerified;
    profile.emailVerified = true;
  } else {
    profile.email = primary ? primary : cleanEmail(stringMember(json, "email"));
  }
  profile.name = cleanName(stringMember(json, "name"), login ? *login : localPart(profile.email));
  return profile;
}

}  // namespace rapport::host::accounts::social
