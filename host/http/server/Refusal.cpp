#include "http/server/Refusal.h"

#include "http/Envelope.h"
#include "http/Exchange.h"
#include "http/RequestId.h"
#include "http/ResponseWriter.h"

namespace rapport::host {

std::string serviceUnavailable(const std::string& message) {
  RawResponse response;
  response.status = 503;
  response.headers = {{"Content-Type", "application/json; charset=utf-8"},
                      {"X-Request-Id", requestIdFor({})},
                      {"Retry-After", "1"}};
  response.body = renderMessage(message);
  return serializeResponse(response, false, false);
}

}  // namespace rapport::host
