#include "http/ByteSource.h"

#include <algorithm>

namespace rapport::host {
namespace {

constexpr std::size_t kBlock = 64 * 1024;

}  // namespace

LineRead readLine(ByteSource& in, std::string& line, std::size_t limit, LineEnds ends) {
  line.clear();
  for (;;) {
    const int byte = in.nextByte();
    if (byte < 0) return LineRead::Ended;
    if (byte == '\n') break;
    // The CR of the CRLF may take the line one byte over the limit.
    if (line.size() >= limit + 1) return LineRead::TooLong;
    line.push_back(static_cast<char>(byte));
  }
  const bool crlf = !line.empty() && line.back() == '\r';
  if (crlf) line.pop_back();
  if (line.size() > limit) return LineRead::TooLong;
  // Kept, or "A\n" would read exactly like "A\r\n" and could not be refused.
  if (!crlf && ends == LineEnds::CrlfOnly) line.push_back('\n');
  return LineRead::Complete;
}

bool readExactly(ByteSource& in, std::string& out, std::size_t length) {
  const std::size_t start = out.size();
  std::size_t got = 0;
  while (got < length) {
    // Grown block by block: a client announcing a large body and sending
    // none of it costs no memory up front.
    const std::size_t want = std::min(kBlock, length - got);
    out.resize(start + got + want);
    const std::size_t n = in.readSome(out.data() + start + got, want);
    if (n == 0) {
      out.resize(start + got);
      return false;
    }
    got += n;
    out.resize(start + got);
  }
  return true;
}

}  // namespace rapport::host
