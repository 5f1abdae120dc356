// server.trusted_proxies: whose X-Forwarded-For a rapportd believes.
//
// Behind a load balancer every connection comes from the balancer; the
// client it serves is in X-Forwarded-For, which nginx extends with the
// address it saw ($proxy_add_x_forwarded_for: "client, proxy1, ..."). Only
// the hops a trusted proxy appended are facts; anything to their left was
// written by whoever sent the request and may be forged.
//
// So: when the peer (the socket's address) is one of the trusted proxies,
// the client is the right-most hop of X-Forwarded-For that is not itself
// trusted (walking from the right, past the chain of our own proxies); when
// every hop is trusted, the left-most. The peer stays the client when it is
// not trusted (the header is ignored), when there is no header, or when a
// hop that would be read is not a plain IP address (garbage, a port, a
// name): a malformed header never yields an address chosen by its sender.
//
// Entries are IPv4 or IPv6 addresses or CIDR blocks ("10.0.0.0/8",
// "fd00::/8"); an IPv4-mapped IPv6 peer ("::ffff:10.0.0.1") matches as its
// IPv4 address. The answer is in canonical text (inet_ntop).
//
// Threading: immutable after parse(); clientAddress() from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapport/http.h"

namespace rapport::host {

class TrustedProxies {
 public:
  // None trusted: X-Forwarded-For is ignored.
  TrustedProxies() = default;
  // Parses a comma-separated list (spaces allowed, empty: none). Throws
  // std::invalid_argument naming the entry that is neither an address nor
  // a CIDR block.
  static TrustedProxies parse(std::string_view list);

  bool empty() const { return blocks_.empty(); }
  // The client's address for a request from `peer` carrying `headers`.
  std::string clientAddress(const std::string& peer, const rapport::Headers& headers) const;

 private:
  struct Address {
    bool v4 = false;
    std::array<std::uint8_t, 16> bytes{};  // the first 4 for IPv4

    // A plain IPv4 or IPv6 address (no brackets, port or scope); IPv4-mapped
    // IPv6 becomes IPv4. Nullopt otherwise.
    static std::optional<Address> parse(std::string_view text);
    std::string text() const;  // canonical (inet_ntop)
  };
  struct Block {
    Address network;
    int prefix = 0;  // bits
  };

  bool trusts(const Address& address) const;

  std::vector<Block> blocks_;
};

}  // namespace rapport::host
