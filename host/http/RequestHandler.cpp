#include "http/RequestHandler.h"

#include <string_view>
#include <utility>

#include "http/BodyReader.h"
#include "http/LingeringClose.h"
#include "http/RequestHead.h"
#include "http/ResponseWriter.h"

namespace rapport::host {
namespace {

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

RawRequest translate(RequestHead& head, const std::string& clientAddress) {
  RawRequest raw;
  raw.method = head.method;
  splitTarget(head.target, raw);
  raw.headers = std::move(head.headers);
  raw.clientAddress = clientAddress;
  return raw;
}

}  // namespace

bool RequestHandler::serve(ServerSession& session, const std::string& clientAddress,
                           const std::function<bool()>& mayKeepAlive) const {
  HeadRead head = readRequestHead(session);
  if (head.outcome == HeadRead::Outcome::NoRequest) return false;
  if (head.outcome == HeadRead::Outcome::Refused) {
    // Whatever follows the bad line is not a request we can find the end of.
    RawRequest raw;
    raw.clientAddress = clientAddress;
    raw.readState = head.refusal;
    session.sendAll(serializeResponse(pipeline_.handle(raw), false, false));
    lingeringClose(session.socket());
    return false;
  }
  const BodyPlan plan = planBody(head.head, maxBodyBytes_);
  const bool clientKeepsAlive = head.head.keepAlive();
  const bool expectsContinue = head.head.expectsContinue();
  RawRequest raw = translate(head.head, clientAddress);
  // Only now that the body will be read: a request refused on its headers
  // alone (413) spares the client sending the body.
  if (plan.readsBytes() && expectsContinue) session.sendAll(kContinueResponse);
  BodyRead body = readBody(plan, session, maxBodyBytes_);
  raw.body = std::move(body.bytes);
  raw.readState = body.state;
  const RawResponse response = pipeline_.handle(raw);
  // Asked once the handler has run: a server that began stopping meanwhile
  // answers "Connection: close".
  const bool keepAlive = clientKeepsAlive && body.consumed && mayKeepAlive();
  session.sendAll(serializeResponse(response, keepAlive, raw.method == "HEAD"));
  if (!body.consumed) lingeringClose(session.socket());
  return keepAlive;
}

}  // namespace rapport::host
