// A ByteSource over a string, for the request-head parser's tests.
#pragma once

#include <string>
#include <utility>

#include "http/ByteSource.h"

namespace rapport::test {

class StringSource final : public rapport::host::ByteSource {
 public:
  explicit StringSource(std::string bytes) : bytes_(std::move(bytes)) {}

  int nextByte() override {
    return position_ < bytes_.size() ? static_cast<unsigned char>(bytes_[position_++]) : -1;
  }

  // What the parser left unread.
  std::string rest() const { return bytes_.substr(position_); }

 private:
  std::string bytes_;
  std::size_t position_ = 0;
};

}  // namespace rapport::test
