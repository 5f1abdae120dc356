// A ByteSource over a string, for the HTTP parsers' tests. readSome hands
// out at most `block` bytes at a time, as a socket may.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "http/ByteSource.h"

namespace rapport::test {

class StringSource final : public rapport::host::ByteSource {
 public:
  explicit StringSource(std::string bytes, std::size_t block = 3)
      : bytes_(std::move(bytes)), block_(block) {}

  int nextByte() override {
    return position_ < bytes_.size() ? static_cast<unsigned char>(bytes_[position_++]) : -1;
  }

  std::size_t readSome(char* buffer, std::size_t length) override {
    const std::size_t n = std::min({length, block_, bytes_.size() - position_});
    std::memcpy(buffer, bytes_.data() + position_, n);
    position_ += n;
    return n;
  }

  // What the parser left unread.
  std::string rest() const { return bytes_.substr(position_); }

 private:
  std::string bytes_;
  std::size_t block_;
  std::size_t position_ = 0;
};

}  // namespace rapport::test
