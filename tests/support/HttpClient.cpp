#include "support/HttpClient.h"

#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/StreamCopier.h>

#include <memory>
#include <sstream>

namespace rapport::test {

namespace {

// A session whose connections leave from a chosen local address.
class BoundSession : public Poco::Net::HTTPClientSession {
 public:
  BoundSession(const std::string& host, Poco::UInt16 port, std::string source)
      : HTTPClientSession(host, port), source_(std::move(source)) {}

 protected:
  void connect(const Poco::Net::SocketAddress& address) override {
    if (source_.empty()) {
      HTTPClientSession::connect(address);
      return;
    }
    Poco::Net::StreamSocket socket(address.family());
    socket.impl()->bind(Poco::Net::SocketAddress(source_, 0), true);
    socket.connect(address, getTimeout());
    socket.setReceiveTimeout(getTimeout());
    socket.setNoDelay(true);
    attachSocket(socket);
  }

 private:
  std::string source_;
};

}  // namespace

struct HttpClient::Impl {
  BoundSession session;
  Impl(const std::string& host, int port, std::string source)
      : session(host, static_cast<Poco::UInt16>(port), std::move(source)) {
    session.setKeepAlive(true);
    session.setTimeout(Poco::Timespan(30, 0));
    // Reconnect after 2 s idle: rapportd closes idle keep-alive connections
    // after server.keep_alive_timeout (5 s by default), and a request sent
    // on a connection the server just closed fails.
    session.setKeepAliveTimeout(Poco::Timespan(2, 0));
  }
};

HttpClient::HttpClient(int port, std::string host) : impl_(new Impl(host, port, "")) {}
HttpClient::HttpClient(int port, std::string host, std::string sourceAddress)
    : impl_(new Impl(host, port, std::move(sourceAddress))) {}
HttpClient::~HttpClient() {
  delete impl_;
}

HttpResult HttpClient::send(const std::string& method, const std::string& path,
                            const std::optional<std::string>& body,
                            const rapport::Headers& headers) {
  Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
  request.setKeepAlive(true);
  if (!token_.empty()) request.set("Authorization", "Bearer " + token_);
  if (body) {
    request.setContentType("application/json");
    request.setContentLength(static_cast<std::streamsize>(body->size()));
  }
  for (const auto& [name, value] : headers) request.set(name, value);
  std::ostream& out = impl_->session.sendRequest(request);
  if (body) out << *body;

  Poco::Net::HTTPResponse response;
  std::istream& in = impl_->session.receiveResponse(response);
  HttpResult result;
  result.status = static_cast<int>(response.getStatus());
  result.reason = response.getReason();
  for (const auto& [name, value] : response) result.headers[name] = value;
  std::ostringstream text;
  Poco::StreamCopier::copyStream(in, text);
  result.body = text.str();
  return result;
}

HttpResult HttpClient::get(const std::string& path, const rapport::Headers& headers) {
  return send("GET", path, std::nullopt, headers);
}

HttpResult HttpClient::del(const std::string& path, const rapport::Headers& headers) {
  return send("DELETE", path, std::nullopt, headers);
}

HttpResult HttpClient::post(const std::string& path, const rapport::Json& body,
                            const rapport::Headers& headers) {
  return send("POST", path, body.dump(), headers);
}

HttpResult HttpClient::patch(const std::string& path, const rapport::Json& body,
                             const rapport::Headers& headers) {
  return send("PATCH", path, body.dump(), headers);
}

}  // namespace rapport::test
