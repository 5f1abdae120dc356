#include "http/ByteSource.h"

namespace rapport::host {
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

}  // namespace rapport::host
