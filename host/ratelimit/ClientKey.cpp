#include "ratelimit/ClientKey.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace rapport::host {
namespace {

// "[2001:db8::1]" -> "2001:db8::1"; "fe80::1%eth0" -> "fe80::1".
std::string_view bareAddress(std::string_view address) {
  if (address.size() >= 2 && address.front() == '[' && address.back() == ']') {
    address = address.substr(1, address.size() - 2);
  }
  if (const std::size_t scope = address.find('%'); scope != std::string_view::npos) {
    address = address.substr(0, scope);
  }
  return address;
}

std::string ipv4Text(const void* bytes) {
  char text[INET_ADDRSTRLEN] = {};
  if (inet_ntop(AF_INET, bytes, text, sizeof text) == nullptr) return {};
  return text;
}

}  // namespace

std::string clientKey(std::string_view address) {
  const std::string bare(bareAddress(address));
  in_addr v4{};
  if (inet_pton(AF_INET, bare.c_str(), &v4) == 1) {
    if (std::string text = ipv4Text(&v4); !text.empty()) return text;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, bare.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_V4MAPPED(&v6)) {
      if (std::string text = ipv4Text(&v6.s6_addr[12]); !text.empty()) return text;
    }
    std::memset(&v6.s6_addr[8], 0, 8);  // the /64 prefix: the interface part zeroed
    char text[INET6_ADDRSTRLEN] = {};
    if (inet_ntop(AF_INET6, &v6, text, sizeof text) != nullptr) return std::string(text) + "/64";
  }
  return std::string(address);
}

}  // namespace rapport::host
