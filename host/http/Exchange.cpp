#include "http/Exchange.h"

#include <algorithm>

namespace rapport::host {
namespace {

bool sameName(const std::string& a, const std::string& b) {
  const rapport::HeaderNameLess less;
  return !less(a, b) && !less(b, a);
}

}  // namespace

const std::string* RawResponse::header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (sameName(key, name)) return &value;
  }
  return nullptr;
}

void RawResponse::setHeader(const std::string& name, std::string value) {
  std::erase_if(headers, [&name](const auto& item) { return sameName(item.first, name); });
  headers.emplace_back(name, std::move(value));
}

}  // namespace rapport::host
