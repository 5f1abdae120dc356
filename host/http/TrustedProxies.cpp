#include "http/TrustedProxies.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>
#include <optional>
#include <stdexcept>

namespace rapport::host {
namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// Splits on ',' keeping empty items (an empty hop is malformed).
std::vector<std::string_view> items(std::string_view list) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  while (true) {
    const auto comma = list.find(',', from);
    out.push_back(trimmed(list.substr(from, comma - from)));
    if (comma == std::string_view::npos) return out;
    from = comma + 1;
  }
}

bool samePrefix(const std::array<std::uint8_t, 16>& a, const std::array<std::uint8_t, 16>& b,
                int bits) {
  const int whole = bits / 8;
  if (std::memcmp(a.data(), b.data(), static_cast<std::size_t>(whole)) != 0) return false;
  const int rest = bits % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

}  // namespace

std::optional<TrustedProxies::Address> TrustedProxies::Address::parse(std::string_view text) {
  const std::string copy(text);
  Address out;
  if (copy.find(':') == std::string::npos) {
    if (inet_pton(AF_INET, copy.c_str(), out.bytes.data()) != 1) return std::nullopt;
    out.v4 = true;
    return out;
  }
  if (inet_pton(AF_INET6, copy.c_str(), out.bytes.data()) != 1) return std::nullopt;
  static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(out.bytes.data(), kMapped, sizeof kMapped) == 0) {
    std::memmove(out.bytes.data(), out.bytes.data() + 12, 4);
    std::memset(out.bytes.data() + 4, 0, 12);
    out.v4 = true;
  }
  return out;
}

std::string TrustedProxies::Address::text() const {
  char out[INET6_ADDRSTRLEN];
  inet_ntop(v4 ? AF_INET : AF_INET6, bytes.data(), out, sizeof out);
  return out;
}

TrustedProxies TrustedProxies::parse(std::string_view list) {
  TrustedProxies out;
  if (trimmed(list).empty()) return out;
  for (const std::string_view entry : items(list)) {
    const auto slash = entry.find('/');
    const auto address = Address::parse(entry.substr(0, slash));
    if (!address) {
      throw std::invalid_argument("server.trusted_proxies: '" + std::string(entry) +
                                  "' is not an IP address or CIDR block");
    }
    const int width = address->v4 ? 32 : 128;
    int prefix = width;
    if (slash != std::string_view::npos) {
      const std::string_view bits = entry.substr(slash + 1);
      const auto [end, error] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
      if (bits.empty() || error != std::errc() || end != bits.data() + bits.size() || prefix < 0 ||
          prefix > width) {
        throw std::invalid_argument("server.trusted_proxies: '" + std::string(entry) +
                                    "' has a prefix length outside 0-" + std::to_string(width));
      }
    }
    out.blocks_.push_back(Block{*address, prefix});
  }
  return out;
}

bool TrustedProxies::trusts(const Address& address) const {
  for (const Block& block : blocks_) {
    if (block.network.v4 == address.v4 &&
        samePrefix(block.network.bytes, address.bytes, block.prefix)) {
      return true;
    }
  }
  return false;
}

std::string TrustedProxies::clientAddress(const std::string& peer,
                                          const rapport::Headers& headers) const {
  if (blocks_.empty()) return peer;
  const auto peerAddress = Address::parse(peer);
  if (!peerAddress || !trusts(*peerAddress)) return peer;
  const auto header = headers.find("X-Forwarded-For");
  if (header == headers.end()) return peer;
  const std::vector<std::string_view> hops = items(header->second);
  std::string leftmost;
  for (auto hop = hops.rbegin(); hop != hops.rend(); ++hop) {
    const auto address = Address::parse(*hop);
    if (!address) return peer;
    if (!trusts(*address)) return address->text();
    leftmost = address->text();
  }
  return leftmost;
}

}  // namespace rapport::host
