#include "accounts/social/StateBinding.h"

#include <Poco/Net/IPAddress.h>

#include "rapport/ids.h"
#include "rapport/validation.h"
#include "ratelimit/ClientKey.h"

namespace rapport::host::accounts::social {

namespace {

constexpr std::size_t kBindingBytes = 32;  // 256 bits

std::string clientHashOf(const rapport::Request& req) {
  return rapport::sha256Hex("social-client:" + rapport::host::clientKey(req.clientAddress));
}

bool forwardedAsHttps(const rapport::Request& req) {
  const std::optional<std::string> proto = req.header("X-Forwarded-Proto");
  return proto && rapport::toLower(rapport::trim(*proto)) == "https";
}

}  // namespace

bool isLoopbackAddress(const std::string& address) {
  std::string text = address;
  if (rapport::toLower(text).rfind("::ffff:", 0) == 0) text = text.substr(7);
  Poco::Net::IPAddress parsed;
  return Poco::Net::IPAddress::tryParse(text, parsed) && parsed.isLoopback();
}

NewBinding newBinding(const rapport::Request& req) {
  NewBinding binding;
  binding.value = rapport::randomToken(kBindingBytes);
  binding.bindingHash = rapport::sha256Hex(binding.value);
  binding.clientHash = clientHashOf(req);
  return binding;
}

std::string bindingCookie(const rapport::Request& req, const std::string& value,
                          std::int64_t maxAgeSeconds) {
  const std::string version = req.apiVersion.empty() ? std::string("v1") : req.apiVersion;
  std::string cookie = std::string(kBindingCookie) + "=" + value +
                       "; Max-Age=" + std::to_string(maxAgeSeconds) + "; Path=/" + version +
                       "/auth/social; HttpOnly; SameSite=Lax";
  const bool plainLoopback = isLoopbackAddress(req.clientAddress) && !forwardedAsHttps(req);
  if (!plainLoopback) cookie += "; Secure";
  return cookie;
}

std::optional<std::string> requestCookie(const rapport::Request& req, const std::string& name) {
  const std::optional<std::string> header = req.header("Cookie");
  if (!header) return std::nullopt;
  std::size_t at = 0;
  while (at <= header->size()) {
    std::size_t end = header->find(';', at);
    if (end == std::string::npos) end = header->size();
    const std::string pair = rapport::trim(header->substr(at, end - at));
    const std::size_t equals = pair.find('=');
    if (equals != std::string::npos && rapport::trim(pair.substr(0, equals)) == name) {
      std::string value = rapport::trim(pair.substr(equals + 1));
      // RFC 6265 allows a quoted value.
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
        value = value.substr(1, value.size() - 2);
      return value;
    }
    at = end + 1;
  }
  return std::nullopt;
}

StateClaim claimOf(const rapport::Request& req) {
  StateClaim claim;
  if (const auto value = requestCookie(req, kBindingCookie))
    claim.bindingHash = rapport::sha256Hex(*value);
  claim.clientHash = clientHashOf(req);
  return claim;
}

}  // namespace rapport::host::accounts::social
