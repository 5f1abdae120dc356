#include "http/RequestId.h"

#include <algorithm>

#include "rapport/ids.h"

namespace rapport::host {
namespace {

bool acceptable(const std::string& id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace

std::string requestIdFor(const rapport::Headers& headers) {
  if (auto it = headers.find("X-Request-Id"); it != headers.end() && acceptable(it->second)) {
    return it->second;
  }
  return rapport::randomToken(12);  // 96 bits: unique enough to find one request in the logs
}

}  // namespace rapport::host
