#include "http/RequestHead.h"

#include <Poco/String.h>

#include <algorithm>
#include <string_view>

namespace rapport::host {

std::string_view trimOws(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  return text.substr(start, text.find_last_not_of(" \t") - start + 1);
}

bool sameToken(std::string_view a, std::string_view b) {
  return Poco::icompare(std::string(a), std::string(b)) == 0;
}

namespace {

// RFC 9112 §2.2 asks to skip "at least one" empty line before a request.
constexpr int kMaxLeadingEmptyLines = 8;

bool isTchar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

// RFC 9110 §5.6.2: the syntax of a method and of a field name.
bool isToken(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return isTchar(c); });
}

// Visible ASCII, and leniently raw UTF-8 (which clients should have
// percent-encoded); never whitespace or control characters.
bool isTargetByte(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return (byte > 0x20 && byte < 0x7F) || byte >= 0x80;
}

// RFC 9110 §5.5: visible characters, obs-text, spaces and tabs. A CR, LF or
// NUL in a value is how responses get split and requests smuggled.
bool isFieldValueByte(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte == '\t' || (byte >= 0x20 && byte != 0x7F);
}

// Whether the comma-separated field `name` lists `token`.
bool listsToken(const rapport::Headers& headers, const char* name, std::string_view token) {
  const auto it = headers.find(name);
  if (it == headers.end()) return false;
  std::string_view rest = it->second;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    if (sameToken(trimOws(rest.substr(0, comma)), token)) return true;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return false;
}

// "HTTP/1.1" (RFC 9112 §2.3). Another major version is well-formed but not
// ours: 505. HTTP/1.2 and later minors are served as HTTP/1.1.
ReadState parseVersion(std::string_view text, int& minor) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (text.size() != 8 || text.substr(0, 5) != "HTTP/" || !digit(text[5]) || text[6] != '.' ||
      !digit(text[7])) {
    return ReadState::Malformed;
  }
  if (text[5] != '1') return ReadState::VersionNotSupported;
  minor = text[7] - '0';
  return ReadState::Complete;
}

// method SP request-target SP HTTP-version, single spaces (RFC 9112 §3).
ReadState parseRequestLine(std::string_view line, RequestHead& head) {
  const std::size_t first = line.find(' ');
  const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos) {
    return ReadState::Malformed;
  }
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, second - first - 1);
  if (!isToken(method) || target.empty() ||
      !std::all_of(target.begin(), target.end(), isTargetByte)) {
    return ReadState::Malformed;
  }
  const ReadState version = parseVersion(line.substr(second + 1), head.minorVersion);
  if (version != ReadState::Complete) return version;
  head.method = std::string(method);
  head.target = std::string(target);
  return ReadState::Complete;
}

// A line that readLine ended at a bare LF (LineEnds::CrlfOnly).
bool endsWithBareLf(std::string_view line) {
  return !line.empty() && line.back() == '\n';
}

// name ":" OWS value OWS (RFC 9112 §5). The name must be a token: that
// refuses a line without a colon, whitespace before the colon (a MUST,
// RFC 9112 §5.1) and a folded continuation line (RFC 9112 §5.2). A second
// Host line is refused (RFC 9112 §3.2): two recipients that each pick
// another one route one request to two places.
ReadState addField(std::string_view line, rapport::Headers& headers) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || !isToken(line.substr(0, colon))) {
    return ReadState::Malformed;
  }
  const std::string_view value = trimOws(line.substr(colon + 1));
  if (!std::all_of(value.begin(), value.end(), isFieldValueByte)) return ReadState::Malformed;
  auto [it, inserted] = headers.emplace(std::string(line.substr(0, colon)), std::string(value));
  if (inserted) return ReadState::Complete;
  if (sameToken(it->first, "Host")) return ReadState::HostRepeated;
  it->second.append(", ").append(value);
  return ReadState::Complete;
}

LineRead readRequestLine(ByteSource& in, std::string& line) {
  for (int skipped = 0; skipped <= kMaxLeadingEmptyLines; ++skipped) {
    // An empty line ended by a bare LF is not empty: refused with the rest.
    const LineRead read = readLine(in, line, kMaxRequestLine, LineEnds::CrlfOnly);
    if (read != LineRead::Complete || !line.empty()) return read;
  }
  return LineRead::Complete;  // still empty: refused as malformed
}

ReadState readFields(ByteSource& in, rapport::Headers& headers, std::size_t budget) {
  std::string line;
  for (std::size_t count = 0;; ++count) {
    const LineRead read = readLine(in, line, kMaxFieldLine, LineEnds::CrlfOnly);
    if (read == LineRead::Ended || endsWithBareLf(line)) return ReadState::Malformed;
    if (read == LineRead::TooLong) return ReadState::HeaderFieldsTooLarge;
    if (line.empty()) return ReadState::Complete;
    if (count == kMaxFields || line.size() + 2 > budget) return ReadState::HeaderFieldsTooLarge;
    budget -= line.size() + 2;
    if (const ReadState state = addField(line, headers); state != ReadState::Complete) {
      return state;
    }
  }
}

// HTTP/1.1 needs the Host field (RFC 9112 §3.2); HTTP/1.0 predates it.
ReadState checkHost(const RequestHead& head) {
  if (head.minorVersion >= 1 && head.headers.find("Host") == head.headers.end()) {
    return ReadState::HostMissing;
  }
  return ReadState::Complete;
}

HeadRead refused(ReadState why) {
  HeadRead read;
  read.outcome = HeadRead::Outcome::Refused;
  read.refusal = why;
  return read;
}

}  // namespace

bool RequestHead::keepAlive() const {
  if (listsToken(headers, "Connection", "close")) return false;
  return minorVersion >= 1 || listsToken(headers, "Connection", "keep-alive");
}

bool RequestHead::expectsContinue() const {
  const auto it = headers.find("Expect");
  return minorVersion >= 1 && it != headers.end() && sameToken(trimOws(it->second), "100-continue");
}

HeadRead readRequestHead(ByteSource& in) {
  HeadRead read;
  std::string line;
  switch (readRequestLine(in, line)) {
    case LineRead::Ended:
      // Nothing at all: the client closed between requests.
      if (line.empty()) return read;
      return refused(ReadState::Malformed);
    case LineRead::TooLong:
      return refused(ReadState::UriTooLong);
    case LineRead::Complete:
      break;
  }
  if (endsWithBareLf(line)) return refused(ReadState::Malformed);
  if (const ReadState state = parseRequestLine(line, read.head); state != ReadState::Complete) {
    return refused(state);
  }
  const ReadState fields = readFields(in, read.head.headers, kMaxHeadBytes - line.size());
  if (fields != ReadState::Complete) return refused(fields);
  if (const ReadState host = checkHost(read.head); host != ReadState::Complete) {
    return refused(host);
  }
  read.outcome = HeadRead::Outcome::Request;
  return read;
}

}  // namespace rapport::host
