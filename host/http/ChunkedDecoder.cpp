#include "http/ChunkedDecoder.h"

#include <algorithm>

#include "http/RequestHead.h"

namespace rapport::host {
namespace {

// A size line holds the size and any chunk extensions (ignored).
constexpr std::size_t kMaxSizeLine = 4096;
// 15 hex digits stay below 2^60: every such size is far over the cap, and
// the size cannot overflow while it is read.
constexpr std::size_t kMaxSizeDigits = 15;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isBws(char c) {
  return c == ' ' || c == '\t';
}

// A control byte other than TAB (CR and LF included), or DEL.
bool isControl(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return (byte < 0x20 && byte != '\t') || byte == 0x7F;
}

}  // namespace

ChunkedDecoder::ChunkedDecoder(std::size_t maxBytes) : maxBytes_(maxBytes) {}

ChunkedDecoder::Status ChunkedDecoder::feed(std::string_view& input) {
  while (!input.empty() && step_ != Step::Done && step_ != Step::Failed) {
    // Data is copied in blocks; the framing lines, short, byte by byte.
    std::size_t used = 1;
    if (step_ == Step::Data) {
      used = takeData(input);
    } else {
      frame(input.front());
    }
    input.remove_prefix(used);
    consumed_ += used;
  }
  switch (step_) {
    case Step::Done:
      return Status::Done;
    case Step::Failed:
      return Status::Failed;
    default:
      return Status::NeedMore;
  }
}

void ChunkedDecoder::frame(char byte) {
  switch (step_) {
    case Step::SizeDigits:
      return sizeDigit(byte);
    case Step::SizeSpace:
      return sizeSpace(byte);
    case Step::Extension:
      return extension(byte);
    case Step::SizeLf:
      if (byte != '\n') return fail(ReadState::Malformed);
      return startChunk();
    case Step::DataCr:
      return expect(byte, '\r', Step::DataLf);
    case Step::DataLf:
      return expect(byte, '\n', Step::SizeDigits);
    case Step::TrailerStart:
      return trailerStart(byte);
    case Step::TrailerLine:
      return trailerLine(byte);
    case Step::TrailerLf:
      return expect(byte, '\n', Step::TrailerStart);
    case Step::FinalLf:
      return expect(byte, '\n', Step::Done);
    case Step::Data:
    case Step::Done:
    case Step::Failed:
      return;  // not framing: feed() never gets here
  }
}

void ChunkedDecoder::sizeDigit(char byte) {
  const int value = hexValue(byte);
  if (value < 0) {
    if (digits_ == 0) return fail(ReadState::Malformed);
    return sizeSpace(byte);
  }
  if (++digits_ > kMaxSizeDigits) return fail(ReadState::Malformed);
  if (!countLineByte(kMaxSizeLine)) return;
  chunkLeft_ = chunkLeft_ * 16 + static_cast<std::uint64_t>(value);
}

// After the digits: BWS, then ";" or the CR.
void ChunkedDecoder::sizeSpace(char byte) {
  if (byte == '\r') {
    step_ = Step::SizeLf;
    return;
  }
  if (!isBws(byte) && byte != ';') return fail(ReadState::Malformed);
  if (!countLineByte(kMaxSizeLine)) return;
  step_ = byte == ';' ? Step::Extension : Step::SizeSpace;
}

void ChunkedDecoder::extension(char byte) {
  if (byte == '\r') {
    step_ = Step::SizeLf;
    return;
  }
  if (isControl(byte)) return fail(ReadState::Malformed);
  countLineByte(kMaxSizeLine);
}

bool ChunkedDecoder::countLineByte(std::size_t limit) {
  if (++lineBytes_ <= limit) return true;
  fail(ReadState::Malformed);
  return false;
}

void ChunkedDecoder::startChunk() {
  digits_ = 0;
  lineBytes_ = 0;
  if (chunkLeft_ == 0) {
    step_ = Step::TrailerStart;
  } else if (chunkLeft_ > maxBytes_ - body_.size()) {
    fail(ReadState::TooLarge);
  } else {
    step_ = Step::Data;
  }
}

std::size_t ChunkedDecoder::takeData(std::string_view input) {
  // Grown as the data arrives, never by what the size line announced: a
  // client that announces a large chunk and sends none of it costs nothing.
  const auto length = static_cast<std::size_t>(std::min<std::uint64_t>(chunkLeft_, input.size()));
  body_.append(input.data(), length);
  chunkLeft_ -= length;
  if (chunkLeft_ == 0) step_ = Step::DataCr;
  return length;
}

void ChunkedDecoder::trailerStart(char byte) {
  if (byte == '\r') {
    step_ = Step::FinalLf;
    return;
  }
  if (++trailerLines_ > kMaxFields) return fail(ReadState::Malformed);
  lineBytes_ = 0;
  step_ = Step::TrailerLine;
  trailerLine(byte);
}

void ChunkedDecoder::trailerLine(char byte) {
  if (byte == '\r') {
    step_ = Step::TrailerLf;
    return;
  }
  if (byte == '\n') return fail(ReadState::Malformed);
  countLineByte(kMaxFieldLine);
}

void ChunkedDecoder::expect(char byte, char expected, Step next) {
  if (byte != expected) return fail(ReadState::Malformed);
  step_ = next;
}

void ChunkedDecoder::fail(ReadState why) {
  step_ = Step::Failed;
  failure_ = why;
}

}  // namespace rapport::host
