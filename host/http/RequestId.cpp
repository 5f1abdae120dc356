#include "http/RequestId.h"

#include <algorithm>
#include <cstdint>
#include <random>

#include "rapport/ids.h"

namespace rapport::host {
namespace {

bool acceptable(const std::string& id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

// 96 bits as 16 characters of [A-Za-z0-9_-], from a generator per thread
// seeded once from the system's random source: a request id must be unique
// in the logs, not secret, and drawing it from RAND_bytes cost about 5% of a
// cheap request.
std::string freshId() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  thread_local std::mt19937_64 generator = [] {
    const std::string seed = rapport::randomToken(24);
    std::seed_seq sequence(seed.begin(), seed.end());
    return std::mt19937_64(sequence);
  }();
  std::uint64_t bits[2] = {generator(), generator()};
  std::string id(16, ' ');
  for (std::size_t i = 0; i < id.size(); ++i) {
    std::uint64_t& word = bits[i / 8];
    id[i] = kAlphabet[word & 63];
    word >>= 6;
  }
  return id;
}

}  // namespace

std::string requestIdFor(const rapport::Headers& headers) {
  if (auto it = headers.find("X-Request-Id"); it != headers.end() && acceptable(it->second)) {
    return it->second;
  }
  return freshId();
}

}  // namespace rapport::host
