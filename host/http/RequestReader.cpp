#include "http/RequestReader.h"

#include <string_view>
#include <utility>

#include "http/ByteSource.h"
#include "http/UrlCoding.h"

namespace rapport::host {
namespace {

// A head is parsed once something in it decides the parser's answer: its
// end (an empty line), a line the parser refuses at once (a bare LF), or a
// size past every limit (414, 431). These bounds sit just beyond the
// parser's own, so the parser, not this scanner, says which refusal.
constexpr std::size_t kDecidableLines = kMaxFields + 16;
constexpr std::size_t kDecidableLine = kMaxRequestLine + 2;
constexpr std::size_t kDecidableHead = kMaxHeadBytes + kMaxRequestLine + 4;

// The received bytes as a ByteSource that notes when a read went past them:
// the parser's answer is then about bytes that have not arrived yet.
class ReceivedBytes final : public ByteSource {
 public:
  explicit ReceivedBytes(std::string_view bytes) : bytes_(bytes) {}

  int nextByte() override {
    if (position_ == bytes_.size()) {
      hitEnd_ = true;
      return -1;
    }
    return static_cast<unsigned char>(bytes_[position_++]);
  }

  std::size_t position() const { return position_; }
  bool hitEnd() const { return hitEnd_; }

 private:
  std::string_view bytes_;
  std::size_t position_ = 0;
  bool hitEnd_ = false;
};

}  // namespace

RequestReader::RequestReader(std::size_t maxBodyBytes) : maxBodyBytes_(maxBodyBytes) {}

RequestReader::Step RequestReader::advance(const std::string& buffer, std::size_t& offset,
                                           bool ended) {
  if (buffer.size() > offset) started_ = true;
  if (stage_ == Stage::Head) {
    const Step step = readHead(buffer, offset, ended);
    if (step != Step::NeedMore || stage_ != Stage::Body) return step;
  }
  if (stage_ == Stage::Body) return readBody(buffer, offset, ended);
  return Step::Ready;
}

bool RequestReader::takeContinue() {
  return std::exchange(continuePending_, false);
}

// Scans only the bytes that arrived since the last call.
bool RequestReader::headDecidable(const std::string& buffer, std::size_t offset) {
  const std::string_view head = std::string_view(buffer).substr(offset);
  bool decidable = false;
  for (; scanned_ < head.size(); ++scanned_) {
    if (head[scanned_] != '\n') continue;
    const std::string_view line = head.substr(lineStart_, scanned_ - lineStart_);
    const bool bareLf = line.empty() || line.back() != '\r';
    const bool empty = line.empty() || line == "\r";
    ++lines_;
    lineStart_ = scanned_ + 1;
    // An empty line ends the head, unless it leads it (skipped, up to a
    // limit the parser enforces): then only a bare LF decides.
    if (bareLf || (empty && contentLines_ > 0) || lines_ > kDecidableLines) decidable = true;
    if (!empty) ++contentLines_;
  }
  return decidable || head.size() - lineStart_ > kDecidableLine || head.size() > kDecidableHead;
}

RequestReader::Step RequestReader::readHead(const std::string& buffer, std::size_t& offset,
                                            bool ended) {
  if (!headDecidable(buffer, offset) && !ended) return Step::NeedMore;
  ReceivedBytes bytes(std::string_view(buffer).substr(offset));
  HeadRead read = readRequestHead(bytes);
  if (bytes.hitEnd() && !ended) return Step::NeedMore;
  switch (read.outcome) {
    case HeadRead::Outcome::NoRequest:
      return ended ? Step::Nothing : Step::NeedMore;
    case HeadRead::Outcome::Refused:
      // Whatever follows the bad line is not a request we can find the end of.
      return finish(read.refusal, false);
    case HeadRead::Outcome::Request:
      break;
  }
  offset += bytes.position();
  head_ = std::move(read.head);
  plan_ = planBody(head_, maxBodyBytes_);
  if (plan_.kind == BodyPlan::Kind::Chunked) chunked_.emplace(maxBodyBytes_);
  // Only when the body will be read: a request refused on its headers alone
  // (413) spares the client sending the body.
  continuePending_ = plan_.readsBytes() && head_.expectsContinue();
  stage_ = Stage::Body;
  return Step::NeedMore;
}

RequestReader::Step RequestReader::readBody(const std::string& buffer, std::size_t& offset,
                                            bool ended) {
  const std::size_t available = buffer.size() - offset;
  switch (plan_.kind) {
    case BodyPlan::Kind::None:
      return finish(ReadState::Complete, true);
    case BodyPlan::Kind::Refused:
      return finish(plan_.refusal, false);
    case BodyPlan::Kind::Fixed:
      if (available >= plan_.length) {
        request_.body.assign(buffer, offset, static_cast<std::size_t>(plan_.length));
        offset += static_cast<std::size_t>(plan_.length);
        return finish(ReadState::Complete, true);
      }
      break;
    case BodyPlan::Kind::Chunked: {
      std::string_view rest = std::string_view(buffer).substr(offset);
      const ChunkedDecoder::Status status = chunked_->feed(rest);
      offset = buffer.size() - rest.size();
      if (status == ChunkedDecoder::Status::Done) {
        request_.body = std::move(chunked_->body());
        return finish(ReadState::Complete, true);
      }
      if (status == ChunkedDecoder::Status::Failed) return finish(chunked_->failure(), false);
      break;
    }
  }
  // The client closed before the end of its body.
  return ended ? finish(ReadState::Incomplete, false) : Step::NeedMore;
}

RequestReader::Step RequestReader::finish(ReadState state, bool consumed) {
  if (stage_ == Stage::Body) {
    framing_.clientKeepsAlive = head_.keepAlive();
    TargetParts target = splitTarget(head_.target);
    request_.method = std::move(head_.method);
    request_.path = std::move(target.path);
    request_.query = std::move(target.query);
    request_.headers = std::move(head_.headers);
  } else {
    framing_.clientKeepsAlive = false;
  }
  if (state != ReadState::Complete) request_.body.clear();
  request_.readState = state;
  framing_.consumed = consumed;
  framing_.headRequest = request_.method == "HEAD";
  stage_ = Stage::Done;
  return Step::Ready;
}

RawRequest RequestReader::take(Framing& framing) {
  framing = framing_;
  RawRequest out = std::move(request_);
  *this = RequestReader(maxBodyBytes_);
  return out;
}

}  // namespace rapport::host
