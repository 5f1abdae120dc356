// The request-forgery guard (TargetGuard.h): URL syntax, the table of
// non-public address ranges, and name resolution bounded in time.
#include "delivery/TargetGuard.h"

#include <arpa/inet.h>

#include <Poco/Exception.h>
#include <Poco/URI.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "delivery/TargetResolver.h"

namespace rapport::webhooks {

namespace {

constexpr std::size_t kMaxUrlLength = 2048;
constexpr std::size_t kMaxHostLength = 253;

const char* const kInvalidUrl = "url must be a valid https URL";
const char* const kTooLong = "url must be at most 2048 characters";
const char* const kCredentials = "url must not contain credentials";
const char* const kNotPublic = "url must not point at a private, loopback or reserved address";

// What a matching range means for the address.
enum class Verdict {
  kRefuse,        // never reachable by a webhook
  kAllow,         // public (only used for IPv6 global unicast, 2000::/3)
  kEmbeddedIpv4,  // judged by the IPv4 address embedded at `offset`
};

struct RangeText {
  const char* cidr;
  Verdict verdict;
  int offset;  // byte offset of the embedded IPv4 address (kEmbeddedIpv4)
  const char* what;
};

// The one table of special ranges (IANA IPv4 and IPv6 special-purpose
// registries), first match wins, so narrower ranges come first. An IPv4
// address that matches no row is public; an IPv6 address that matches no row
// is outside the global unicast space and refused.
constexpr RangeText kRanges[] = {
    // IPv4
    {"0.0.0.0/8", Verdict::kRefuse, 0, "this network"},
    {"10.0.0.0/8", Verdict::kRefuse, 0, "private"},
    {"100.64.0.0/10", Verdict::kRefuse, 0, "carrier-grade NAT"},
    {"127.0.0.0/8", Verdict::kRefuse, 0, "loopback"},
    {"169.254.0.0/16", Verdict::kRefuse, 0, "link-local (cloud metadata)"},
    {"172.16.0.0/12", Verdict::kRefuse, 0, "private"},
    {"192.0.0.0/24", Verdict::kRefuse, 0, "IETF protocol assignments"},
    {"192.0.2.0/24", Verdict::kRefuse, 0, "documentation (TEST-NET-1)"},
    {"192.88.99.0/24", Verdict::kRefuse, 0, "6to4 relay anycast"},
    {"192.168.0.0/16", Verdict::kRefuse, 0, "private"},
    {"198.18.0.0/15", Verdict::kRefuse, 0, "benchmarking"},
    {"198.51.100.0/24", Verdict::kRefuse, 0, "documentation (TEST-NET-2)"},
    {"203.0.113.0/24", Verdict::kRefuse, 0, "documentation (TEST-NET-3)"},
    {"224.0.0.0/4", Verdict::kRefuse, 0, "multicast"},
    {"255.255.255.255/32", Verdict::kRefuse, 0, "broadcast"},
    {"240.0.0.0/4", Verdict::kRefuse, 0, "reserved"},
    // IPv6
    {"::/128", Verdict::kRefuse, 0, "unspecified"},
    {"::1/128", Verdict::kRefuse, 0, "loopback"},
    {"::ffff:0:0/96", Verdict::kEmbeddedIpv4, 12, "IPv4-mapped"},
    {"64:ff9b::/96", Verdict::kEmbeddedIpv4, 12, "NAT64 well-known prefix"},
    {"64:ff9b:1::/48", Verdict::kRefuse, 0, "local-use NAT64"},
    {"100::/64", Verdict::kRefuse, 0, "discard-only"},
    {"2001::/23", Verdict::kRefuse, 0, "IETF protocol assignments (Teredo included)"},
    {"2001:db8::/32", Verdict::kRefuse, 0, "documentation"},
    {"2002::/16", Verdict::kEmbeddedIpv4, 2, "6to4"},
    {"3fff::/20", Verdict::kRefuse, 0, "documentation"},
    {"2000::/3", Verdict::kAllow, 0, "global unicast"},
    {"fc00::/7", Verdict::kRefuse, 0, "unique local"},
    {"fe80::/10", Verdict::kRefuse, 0, "link-local"},
    {"fec0::/10", Verdict::kRefuse, 0, "site-local (deprecated)"},
    {"ff00::/8", Verdict::kRefuse, 0, "multicast"},
};

struct Range {
  std::array<unsigned char, 16> bytes{};
  std::size_t length = 0;  // 4 or 16
  unsigned prefix = 0;
  Verdict verdict = Verdict::kRefuse;
  int offset = 0;
};

std::vector<Range> buildRanges() {
  std::vector<Range> ranges;
  for (const RangeText& text : kRanges) {
    const std::string cidr = text.cidr;
    const auto slash = cidr.find('/');
    const Poco::Net::IPAddress network(cidr.substr(0, slash));
    Range range;
    range.length = network.length();
    std::memcpy(range.bytes.data(), network.addr(), range.length);
    range.prefix = static_cast<unsigned>(std::stoul(cidr.substr(slash + 1)));
    range.verdict = text.verdict;
    range.offset = text.offset;
    ranges.push_back(range);
  }
  return ranges;
}

const std::vector<Range>& ranges() {
  static const std::vector<Range> table = buildRanges();
  return table;
}

bool inRange(const unsigned char* bytes, std::size_t length, const Range& range) {
  if (length != range.length) return false;
  const unsigned whole = range.prefix / 8;
  if (std::memcmp(bytes, range.bytes.data(), whole) != 0) return false;
  const unsigned rest = range.prefix % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<unsigned char>(0xFFu << (8 - rest));
  return (bytes[whole] & mask) == (range.bytes[whole] & mask);
}

bool isPublicBytes(const unsigned char* bytes, std::size_t length) {
  for (const Range& range : ranges()) {
    if (!inRange(bytes, length, range)) continue;
    switch (range.verdict) {
      case Verdict::kRefuse:
        return false;
      case Verdict::kAllow:
        return true;
      case Verdict::kEmbeddedIpv4:
        return isPublicBytes(bytes + range.offset, 4);
    }
  }
  return length == 4;  // IPv6 outside 2000::/3 is reserved or unassigned
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_';
}

struct Parsed {
  std::optional<TargetUrl> url;
  std::string error;
};

Parsed parse(const std::string& url) {
  Parsed out;
  out.error = kInvalidUrl;
  if (url.size() > kMaxUrlLength) {
    out.error = kTooLong;
    return out;
  }
  for (const char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F) return out;  // controls, spaces, non-ASCII
  }
  const auto schemeEnd = url.find("://");
  if (schemeEnd == std::string::npos || lower(url.substr(0, schemeEnd)) != "https") return out;
  const auto authorityStart = schemeEnd + 3;
  const auto authorityEnd = url.find_first_of("/?#", authorityStart);
  const std::string authority =
      url.substr(authorityStart, authorityEnd == std::string::npos ? std::string::npos
                                                                   : authorityEnd - authorityStart);
  if (authority.find('@') != std::string::npos) {
    out.error = kCredentials;
    return out;
  }
  if (url.find('#') != std::string::npos) return out;  // no fragment

  Poco::URI uri;
  try {
    uri = Poco::URI(url);
  } catch (const Poco::Exception&) {
    return out;
  }
  if (lower(uri.getScheme()) != "https" || uri.getHost().empty() || !uri.getUserInfo().empty())
    return out;

  // Host and port from the authority as written (Poco::URI decodes the host
  // and maps an explicit ":0" to the default port; neither is accepted here).
  std::string host;
  std::string port;
  bool hasPort = false;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string::npos) return out;
    host = authority.substr(1, close - 1);
    const std::string after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return out;
      hasPort = true;
      port = after.substr(1);
    }
    // inet_pton, not Poco's IPAddress::tryParse: Poco 1.11 refuses "::", which
    // must parse (and then be refused by the address rule, not as bad syntax).
    in6_addr literal{};
    if (host.find('%') != std::string::npos || ::inet_pton(AF_INET6, host.c_str(), &literal) != 1)
      return out;
  } else {
    const auto colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string::npos) {
      hasPort = true;
      port = authority.substr(colon + 1);
    }
    if (host.empty() || host.size() > kMaxHostLength || host.front() == '.' ||
        host.find("..") != std::string::npos || !std::all_of(host.begin(), host.end(), isNameChar))
      return out;
  }
  host = lower(host);
  if (lower(uri.getHost()) != host) return out;

  TargetUrl target;
  target.host = host;
  if (hasPort) {
    if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        }))
      return out;
    const unsigned long value = std::stoul(port);
    if (value < 1 || value > 65535) return out;
    target.port = static_cast<unsigned short>(value);
  }
  std::string rest = authorityEnd == std::string::npos ? "" : url.substr(authorityEnd);
  if (rest.empty() || rest.front() == '?') rest.insert(0, "/");
  target.pathAndQuery = rest;
  out.url = target;
  out.error.clear();
  return out;
}

}  // namespace

bool isPublicAddress(const Poco::Net::IPAddress& address) {
  return isPublicBytes(static_cast<const unsigned char*>(address.addr()), address.length());
}

std::optional<TargetUrl> parseTargetUrl(const std::string& url) {
  return parse(url).url;
}

TargetGuard::TargetGuard(bool allowPrivateTargets, std::chrono::milliseconds resolveTimeout)
    : allowPrivate_(allowPrivateTargets), resolveTimeout_(resolveTimeout) {}

std::optional<std::string> TargetGuard::checkSyntax(const std::string& url) const {
  Parsed parsed = parse(url);
  if (!parsed.url) return parsed.error;
  return std::nullopt;
}

std::optional<std::string> TargetGuard::checkForRegistration(const std::string& url,
                                                             const std::string& company) const {
  const Parsed parsed = parse(url);
  if (!parsed.url) return parsed.error;
  if (allowPrivate_) return std::nullopt;
  const Resolution resolution = resolveHost(parsed.url->host, resolveTimeout_, company);
  if (resolution.status != Resolution::Status::kResolved) return std::nullopt;
  for (const auto& address : resolution.addresses) {
    if (!isPublicAddress(address)) return std::string(kNotPublic);
  }
  return std::nullopt;
}

TargetGuard::Resolved TargetGuard::resolveForDelivery(const std::string& url,
                                                      const std::string& company) const {
  const Parsed parsed = parse(url);
  if (!parsed.url) throw TargetRefused(parsed.error);
  Resolution resolution = resolveHost(parsed.url->host, resolveTimeout_, company);
  if (resolution.status != Resolution::Status::kResolved)
    throw TargetUnresolved(resolution.error, resolution.status == Resolution::Status::kTimedOut);
  if (!allowPrivate_) {
    for (const auto& address : resolution.addresses) {
      if (!isPublicAddress(address))
        throw TargetRefused(parsed.url->host + " resolves to " + address.toString() +
                            ", a private, loopback or reserved address");
    }
  }
  return Resolved{*parsed.url, std::move(resolution.addresses)};
}

}  // namespace rapport::webhooks
