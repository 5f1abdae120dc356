#include "metrics/MetricsListener.h"

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/ThreadPool.h>

#include <charconv>
#include <stdexcept>

#include "log/Log.h"
#include "metrics/Registry.h"

namespace rapport::host::metrics {
namespace {

using Poco::Net::HTTPResponse;

constexpr const char* kContentType = "text/plain; version=0.0.4; charset=utf-8";

void answer(Poco::Net::HTTPServerResponse& response, HTTPResponse::HTTPStatus status,
            const std::string& body, const char* contentType = "text/plain; charset=utf-8") {
  response.setStatusAndReason(status);
  response.setContentType(contentType);
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

class MetricsHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit MetricsHandler(const Registry& registry) : registry_(registry) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    const std::string& uri = request.getURI();
    const std::string path = uri.substr(0, uri.find('?'));
    if (path != "/metrics") {
      answer(response, HTTPResponse::HTTP_NOT_FOUND, "Not found.\n");
    } else if (request.getMethod() != "GET") {
      response.set("Allow", "GET");
      answer(response, HTTPResponse::HTTP_METHOD_NOT_ALLOWED, "Only GET.\n");
    } else {
      answer(response, HTTPResponse::HTTP_OK, registry_.render(), kContentType);
    }
  }

 private:
  const Registry& registry_;
};

class HandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit HandlerFactory(const Registry& registry) : registry_(registry) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new MetricsHandler(registry_);
  }

 private:
  const Registry& registry_;
};

[[noreturn]] void refuse(const std::string& text) {
  throw std::invalid_argument("metrics.listen must be host:port, e.g. 127.0.0.1:9090 (got '" +
                              text + "')");
}

}  // namespace

ListenAddress parseListenAddress(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) refuse(text);
  std::string host = text.substr(0, colon);
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') refuse(text);
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string::npos) {
    refuse(text);  // an IPv6 address without brackets
  }
  const std::string_view port(text.data() + colon + 1, text.size() - colon - 1);
  int value = -1;
  const auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || ptr != port.data() + port.size() || value < 0 || value > 65535) {
    refuse(text);
  }
  return ListenAddress{host, value};
}

MetricsListener::MetricsListener(const ListenAddress& address, const Registry& registry) {
  Poco::Net::ServerSocket socket;
  try {
    // SO_REUSEADDR (a restart binds at once) but not SO_REUSEPORT, which
    // would let a second server share the port and half the scrapes.
    socket.bind(Poco::Net::SocketAddress(address.host, static_cast<Poco::UInt16>(address.port)),
                true, false);
    socket.listen(16);
  } catch (const Poco::Exception& e) {
    throw std::runtime_error("metrics.listen: cannot listen on " + address.host + ":" +
                             std::to_string(address.port) + ": " + e.displayText());
  }
  port_ = socket.address().port();
  auto params = Poco::AutoPtr<Poco::Net::HTTPServerParams>(new Poco::Net::HTTPServerParams);
  params->setMaxThreads(2);
  params->setMaxQueued(16);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(5, 0));
  params->setTimeout(Poco::Timespan(10, 0));
  threads_ = std::make_unique<Poco::ThreadPool>(1, 2);
  server_ = std::make_unique<Poco::Net::HTTPServer>(new HandlerFactory(registry), *threads_, socket,
                                                    params);
  server_->start();
  const bool v6 = address.host.find(':') != std::string::npos;
  const std::string host = v6 ? "[" + address.host + "]" : address.host;
  log::info("metrics listening",
            {{"host", address.host},
             {"port", std::to_string(port_)},
             {"url", "http://" + host + ":" + std::to_string(port_) + "/metrics"}});
}

MetricsListener::~MetricsListener() {
  // Closes the socket and waits for the scrapes in progress (a few ms).
  server_->stopAll(true);
  server_.reset();
  threads_->joinAll();
}

}  // namespace rapport::host::metrics
