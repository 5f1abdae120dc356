// What the harnesses share: a property check that stops the run, and a
// ByteSource over the fuzzer's bytes that counts what the parser consumed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "http/ByteSource.h"

// A violated property is a finding like a crash: print which one, then trap
// so libFuzzer writes the reproducer (abort would do too; a trap keeps the
// frame in the stack trace).
#define FUZZ_CHECK(condition)                                                                  \
  do {                                                                                         \
    if (!(condition)) {                                                                        \
      std::fprintf(stderr, "property violated: %s (%s:%d)\n", #condition, __FILE__, __LINE__); \
      __builtin_trap();                                                                        \
    }                                                                                          \
  } while (false)

namespace rapport::fuzz {

// The fuzz input as the request-head parser reads it, counting what it took.
class BytesSource final : public rapport::host::ByteSource {
 public:
  explicit BytesSource(std::string_view bytes) : bytes_(bytes) {}

  int nextByte() override {
    return position_ < bytes_.size() ? static_cast<unsigned char>(bytes_[position_++]) : -1;
  }

  std::size_t consumed() const { return position_; }

 private:
  std::string_view bytes_;
  std::size_t position_ = 0;
};

inline std::string_view asText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace rapport::fuzz
