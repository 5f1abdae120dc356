#include "http/RequestHandler.h"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/String.h>
#include <Poco/Timespan.h>

#include <chrono>
#include <ostream>

#include "http/BodyReader.h"
#include "http/ReasonPhrase.h"

namespace rapport::host {
namespace {

// Bounds of the drain before closing a connection whose body was not read.
constexpr auto kDrainTime = std::chrono::seconds(2);
constexpr long kDrainIdleMicros = 500'000;
constexpr std::size_t kDrainBytes = 64 * 1024 * 1024;

// "/v1/x?a=1" -> path "/v1/x", query "a=1". The absolute form
// ("http://host/v1/x?a=1", allowed by RFC 9112 for proxies) keeps its path.
void splitTarget(const std::string& target, RawRequest& raw) {
  std::string_view rest = target;
  if (const std::size_t hash = rest.find('#'); hash != std::string_view::npos) {
    rest = rest.substr(0, hash);
  }
  if (!rest.empty() && rest.front() != '/') {
    const std::size_t scheme = rest.find("://");
    const std::size_t slash = scheme == std::string_view::npos ? 0 : rest.find('/', scheme + 3);
    rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
  }
  const std::size_t question = rest.find('?');
  raw.path = std::string(rest.substr(0, question));
  if (question != std::string_view::npos) raw.query = std::string(rest.substr(question + 1));
}

RawRequest translate(const Poco::Net::HTTPServerRequest& request) {
  RawRequest raw;
  raw.method = request.getMethod();
  splitTarget(request.getURI(), raw);
  // Repeated fields combine into one comma-separated value (RFC 9110 5.3).
  for (const auto& [name, value] : request) {
    auto [it, inserted] = raw.headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  }
  raw.clientAddress = request.clientAddress().host().toString();
  return raw;
}

// Headers the transport owns: a handler's copy would contradict the framing.
bool transportHeader(const std::string& name) {
  return Poco::icompare(name, "Content-Length") == 0 || Poco::icompare(name, "Connection") == 0 ||
         Poco::icompare(name, "Transfer-Encoding") == 0;
}

void copyHeaders(const RawResponse& out, Poco::Net::HTTPServerResponse& response) {
  for (const auto& [name, value] : out.headers) {
    if (Poco::icompare(name, "Content-Type") == 0) {
      response.setContentType(value);
    } else if (!transportHeader(name)) {
      response.add(name, value);
    }
  }
}

void send(const RawResponse& out, bool keepAlive, Poco::Net::HTTPServerRequest& request,
          Poco::Net::HTTPServerResponse& response) {
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(out.status),
                              reasonPhrase(out.status));
  copyHeaders(out, response);
  if (!keepAlive) response.setKeepAlive(false);
  response.setChunkedTransferEncoding(false);
  // 204 and 304 never have a body (RFC 9110 15.3.5, 15.4.5); 204 not even a
  // Content-Length.
  const bool bodyless = out.status == 204 || out.status == 304;
  if (out.status != 204) {
    response.setContentLength64(static_cast<Poco::Int64>(bodyless ? 0 : out.body.size()));
  }
  // send() rather than sendBuffer(): sendBuffer leaves the bytes in Poco's
  // buffer until the handler returns, too late for drainBeforeClose.
  std::ostream& stream = response.send();
  if (!bodyless && request.getMethod() != Poco::Net::HTTPRequest::HTTP_HEAD) {
    stream.write(out.body.data(), static_cast<std::streamsize>(out.body.size()));
  }
  stream.flush();
}

// Closing a socket that still holds unread request bytes makes the kernel
// send a reset, which can destroy the response before the client reads it.
// So: finish sending, then read and discard what the client is still
// sending, within small bounds, as nginx's lingering close does.
void drainBeforeClose(Poco::Net::HTTPServerRequest& request) {
  auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request);
  if (!impl) return;
  try {
    Poco::Net::StreamSocket& socket = impl->socket();
    socket.shutdownSend();
    socket.setReceiveTimeout(Poco::Timespan(0, kDrainIdleMicros));
    const auto deadline = std::chrono::steady_clock::now() + kDrainTime;
    char buffer[16 * 1024];
    std::size_t drained = 0;
    while (drained < kDrainBytes && std::chrono::steady_clock::now() < deadline) {
      const int n = socket.receiveBytes(buffer, sizeof buffer);
      if (n <= 0) break;
      drained += static_cast<std::size_t>(n);
    }
  } catch (const Poco::Exception&) {
    // Time-out or reset: the client is done either way.
  }
}

}  // namespace

void RequestHandler::handleRequest(Poco::Net::HTTPServerRequest& request,
                                   Poco::Net::HTTPServerResponse& response) {
  RawRequest raw = translate(request);
  BodyRead body = readBody(request, maxBodyBytes_);
  raw.body = std::move(body.bytes);
  raw.bodyState = body.state;
  const RawResponse out = pipeline_.handle(raw);
  send(out, body.consumed, request, response);
  if (!body.consumed) drainBeforeClose(request);
}

Poco::Net::HTTPRequestHandler* RequestHandlerFactory::createRequestHandler(
    const Poco::Net::HTTPServerRequest&) {
  return new RequestHandler(pipeline_, maxBodyBytes_);
}

}  // namespace rapport::host
