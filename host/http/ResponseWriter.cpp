#include "http/ResponseWriter.h"

#include <Poco/DateTimeFormat.h>
#include <Poco/DateTimeFormatter.h>
#include <Poco/String.h>
#include <Poco/Timestamp.h>

#include <algorithm>

#include "http/ReasonPhrase.h"

namespace rapport::host {
namespace {

// Headers the transport owns: a handler's copy would contradict the framing.
bool transportHeader(const std::string& name) {
  for (const char* owned : {"Content-Length", "Connection", "Transfer-Encoding", "Date"}) {
    if (Poco::icompare(name, owned) == 0) return true;
  }
  return false;
}

// A CR or LF in a header would let its value write headers of its own.
bool writable(const std::string& name, const std::string& value) {
  const auto breaksLine = [](char c) { return c == '\r' || c == '\n' || c == '\0'; };
  return !name.empty() && name.find(':') == std::string::npos &&
         std::none_of(name.begin(), name.end(), breaksLine) &&
         std::none_of(value.begin(), value.end(), breaksLine);
}

void appendField(std::string& out, const std::string& name, const std::string& value) {
  out.append(name).append(": ").append(value).append("\r\n");
}

}  // namespace

std::string serializeResponse(const RawResponse& response, bool keepAlive, bool headRequest) {
  const bool bodyless = response.status == 204 || response.status == 304;
  std::string out;
  out.reserve(256 + response.body.size());
  out.append("HTTP/1.1 ")
      .append(std::to_string(response.status))
      .append(" ")
      .append(reasonPhrase(response.status))
      .append("\r\n");
  appendField(
      out, "Date",
      Poco::DateTimeFormatter::format(Poco::Timestamp(), Poco::DateTimeFormat::HTTP_FORMAT));
  for (const auto& [name, value] : response.headers) {
    if (!transportHeader(name) && writable(name, value)) appendField(out, name, value);
  }
  // A 304's Content-Length would have to be the 200's (RFC 9110 §8.6): none.
  if (!bodyless) appendField(out, "Content-Length", std::to_string(response.body.size()));
  // Explicit either way: an HTTP/1.0 client keeps the connection only when told.
  appendField(out, "Connection", keepAlive ? "keep-alive" : "close");
  out.append("\r\n");
  if (!bodyless && !headRequest) out.append(response.body);
  return out;
}

}  // namespace rapport::host
