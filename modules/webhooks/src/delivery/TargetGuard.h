// The request-forgery guard (decisions §8): a webhook may only reach public
// addresses. A URL is checked when a webhook is created or changed, and again
// at every delivery, where the addresses checked are the ones connected to
// (no second DNS lookup between the check and the connection, so a name
// that changes its answer cannot slip through).
//
// Refused: loopback, private (RFC 1918), link-local (169.254.0.0/16, the
// cloud metadata address included), carrier-grade NAT (100.64.0.0/10),
// "this network" (0.0.0.0/8), multicast, reserved and broadcast, the
// documentation and benchmark ranges, and the IPv6 equivalents (::, ::1,
// fc00::/7, fe80::/10, ff00::/8, 2001:db8::/32, 100::/64) including IPv4
// embedded in IPv6 (::ffff:a.b.c.d, 64:ff9b::/96, 2002::/16) judged by the
// IPv4 inside. Numbers in any form the resolver accepts (2130706433,
// 0177.0.0.1, 0x7f.1) are judged after resolution, so they cannot hide.
// `allow_private_targets` lifts the address rule (development, tests); the
// syntax rules always apply.
#pragma once

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <Poco/Net/IPAddress.h>

namespace rapport::webhooks {

// The parts of a webhook URL a delivery needs.
struct TargetUrl {
  std::string host;  // as written, lower case, without brackets for IPv6
  unsigned short port = 443;
  std::string pathAndQuery;  // "/hooks/in?x=1"; "/" when empty
};

// True for an address a webhook may reach (the list above).
bool isPublicAddress(const Poco::Net::IPAddress& address);

class TargetGuard {
 public:
  TargetGuard(bool allowPrivateTargets, std::chrono::milliseconds resolveTimeout);

  // Syntax only: an absolute https URL of at most 2048 characters with a
  // host, no user information, no fragment, a valid port. Returns the 422
  // message ("url must be an https URL", ...) or nullopt when valid.
  std::optional<std::string> checkSyntax(const std::string& url) const;

  // At create and update: syntax, then the addresses the host resolves to.
  // Returns the 422 message ("url must not point at a private, loopback or
  // reserved address") or nullopt. A name that does not resolve (or not
  // within the resolve time-out, or not now: `company` holds its share of
  // lookups already, TargetResolver.h) passes: its deliveries fail and retry.
  std::optional<std::string> checkForRegistration(const std::string& url,
                                                  const std::string& company = "") const;

  // At delivery: resolves the host and returns the addresses to connect to,
  // in resolver order. Throws TargetRefused when any address is not public
  // (unless allowed), TargetUnresolved when the name does not resolve.
  // `company` is whose delivery it is (the resolver's per-company bound).
  struct Resolved {
    TargetUrl url;
    std::vector<Poco::Net::IPAddress> addresses;
  };
  Resolved resolveForDelivery(const std::string& url, const std::string& company = "") const;

 private:
  bool allowPrivate_;
  std::chrono::milliseconds resolveTimeout_;
};

// Parses an https URL as the checks above do; nullopt when it is not one.
std::optional<TargetUrl> parseTargetUrl(const std::string& url);

struct TargetRefused : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct TargetUnresolved : std::runtime_error {
  explicit TargetUnresolved(const std::string& why, bool timedOut = false)
      : std::runtime_error(why), timedOut(timedOut) {}
  bool timedOut;  // the resolver did not answer in time (not: no such name, or busy)
};

}  // namespace rapport::webhooks
