// One signed delivery attempt over HTTPS (HttpsSender.h): resolve and check
// the target, reuse or open a connection to a checked address
// (HttpsConnection.h: the Poco NetSSL approach and why), send a minimal
// HTTP/1.1 POST, read the answer within the deadline and the read cap.
#include "delivery/HttpsSender.h"

#include <pthread.h>
#include <signal.h>

#include <Poco/Net/NetSSL.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "delivery/HttpsConnection.h"
#include "delivery/Signature.h"

namespace rapport::webhooks {

namespace {

constexpr std::size_t kHeaderCap = 16 * 1024;  // status line and headers, and chunk trailers
constexpr std::size_t kLineCap = 4096;         // one chunk-size line
constexpr std::size_t kReadChunk = 16 * 1024;
constexpr std::size_t kIdlePerTarget = 16;
constexpr std::size_t kIdleTotal = 128;
constexpr auto kIdleMaxAge = std::chrono::seconds(30);

using Clock = std::chrono::steady_clock;

// Writing to a connection the receiver closed raises SIGPIPE, which would
// end the process: the signal is blocked in this thread for the attempt and
// one raised meanwhile is consumed before the mask is restored.
class SigPipeBlock {
 public:
  SigPipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
    sigset_t pending;
    sigpending(&pending);
    pendingBefore_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigPipeBlock() {
    if (!pendingBefore_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        while (sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SigPipeBlock(const SigPipeBlock&) = delete;
  SigPipeBlock& operator=(const SigPipeBlock&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t previous_{};
  bool pendingBefore_ = false;
};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

bool hasLineBreak(const std::string& text) {
  return text.find_first_of("\r\n") != std::string::npos;
}

// Comma-separated tokens of a header value, lower case.
bool hasToken(const std::string& value, const std::string& token) {
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto comma = value.find(',', start);
    const std::string item = lower(
        trim(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (item == token) return true;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return false;
}

std::string hostHeader(const TargetUrl& url) {
  std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  if (url.port != 443) host += ":" + std::to_string(url.port);
  return host;
}

std::string buildRequest(const TargetUrl& url, const AttemptRequest& request,
                         std::int64_t unixSeconds, const std::string& userAgent) {
  const std::string t = std::to_string(unixSeconds);
  std::string wire;
  wire.reserve(512 + request.body.size());
  wire.append("POST ").append(url.pathAndQuery).append(" HTTP/1.1\r\n");
  wire.append("Host: ").append(hostHeader(url)).append("\r\n");
  wire.append("User-Agent: ").append(userAgent).append("\r\n");
  wire.append("Content-Type: application/json\r\n");
  wire.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
  wire.append("X-Service-Event: ").append(request.event).append("\r\n");
  wire.append("X-Service-Delivery: ").append(request.deliveryId).append("\r\n");
  wire.append("X-Service-Timestamp: ").append(t).append("\r\n");
  wire.append("X-Service-Signature: ")
      .append(signatureHeader(
          request.previousSecret ? std::vector<std::string>{request.secret, *request.previousSecret}
                                 : std::vector<std::string>{request.secret},
          unixSeconds, request.body))
      .append("\r\n\r\n");
  wire.append(request.body);
  return wire;
}

HttpsFailure protocolError(const std::string& why) {
  return HttpsFailure(HttpsFailure::Kind::kProtocol, "invalid answer: " + why);
}

// What one request/answer exchange produced; filled as it goes so that a
// failure half-way still tells what came (status, first bytes).
struct Exchange {
  int status = 0;
  std::string body;  // first keepBytes of the (decoded) body
  std::string error;
  bool anyByte = false;  // a byte of answer arrived
  bool reusable = false;
  bool timedOut = false;
  std::string retryAfter;  // the Retry-After header of the answer
};

class AnswerReader {
 public:
  AnswerReader(HttpsConnection& connection, Deadline deadline, const HttpsSender::Options& options,
               Exchange& out)
      : connection_(connection), deadline_(deadline), options_(options), out_(out) {}

  void read() {
    bool http11 = true;
    std::vector<std::pair<std::string, std::string>> headers;
    do {  // interim 1xx answers (100 Continue, 103 Early Hints) are skipped
      headers.clear();
      readHead(http11, headers);
    } while (out_.status >= 100 && out_.status < 200 && out_.status != 101);

    std::string transferEncoding;
    std::string connectionHeader;
    std::optional<std::uint64_t> contentLength;
    for (const auto& [name, value] : headers) {
      if (name == "transfer-encoding") {
        transferEncoding += (transferEncoding.empty() ? "" : ",") + value;
      } else if (name == "retry-after") {
        out_.retryAfter = value;
      } else if (name == "connection") {
        connectionHeader += (connectionHeader.empty() ? "" : ",") + value;
      } else if (name == "content-length") {
        const std::string digits = trim(value);
        if (digits.empty() || digits.size() > 18 ||
            !std::all_of(digits.begin(), digits.end(),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }))
          throw protocolError("bad Content-Length");
        const std::uint64_t length = std::stoull(digits);
        if (contentLength && *contentLength != length)
          throw protocolError("conflicting Content-Length");
        contentLength = length;
      }
    }
    // Both Content-Length and Transfer-Encoding: chunked wins, and a
    // connection framed so ambiguously is not reused.
    const bool persistent = (http11 ? !hasToken(connectionHeader, "close")
                                    : hasToken(connectionHeader, "keep-alive")) &&
                            !(contentLength && !transferEncoding.empty());
    bool framed = true;
    if (out_.status == 204 || out_.status == 304 || out_.status == 101) {
      framed = out_.status != 101;
    } else if (!transferEncoding.empty()) {
      const auto comma = transferEncoding.rfind(',');
      const std::string last = lower(
          trim(comma == std::string::npos ? transferEncoding : transferEncoding.substr(comma + 1)));
      if (last == "chunked") {
        if (!readChunked()) return;
      } else {
        readUntilClose();
        framed = false;
      }
    } else if (contentLength) {
      if (!readLength(*contentLength)) return;
    } else {
      readUntilClose();
      framed = false;
    }
    out_.reusable = persistent && framed && buffer_.empty();
  }

 private:
  bool fill() {
    char chunk[kReadChunk];
    const std::size_t n = connection_.readSome(chunk, sizeof chunk, deadline_);
    if (n == 0) return false;
    out_.anyByte = true;
    buffer_.append(chunk, n);
    return true;
  }

  // The end of the head (after the empty line) in buffer_, or npos.
  std::size_t headEnd() const {
    for (auto i = buffer_.find('\n'); i != std::string::npos; i = buffer_.find('\n', i + 1)) {
      std::size_t j = i + 1;
      if (j < buffer_.size() && buffer_[j] == '\r') ++j;
      if (j < buffer_.size() && buffer_[j] == '\n') return j + 1;
    }
    return std::string::npos;
  }

  void readHead(bool& http11, std::vector<std::pair<std::string, std::string>>& headers) {
    std::size_t end = headEnd();
    while (end == std::string::npos) {
      if (buffer_.size() > kHeaderCap)
        throw protocolError("headers larger than " + std::to_string(kHeaderCap) + " bytes");
      if (!fill())
        throw HttpsFailure(HttpsFailure::Kind::kClosed, out_.anyByte
                                                            ? "connection closed in the answer"
                                                            : "connection closed before an answer");
      end = headEnd();
    }
    if (end > kHeaderCap + 4)
      throw protocolError("headers larger than " + std::to_string(kHeaderCap) + " bytes");
    const std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end);

    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < head.size()) {
      auto nl = head.find('\n', start);
      if (nl == std::string::npos) nl = head.size();
      std::string line = head.substr(start, nl - start);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) lines.push_back(line);
      start = nl + 1;
    }
    if (lines.empty()) throw protocolError("no status line");
    const std::string& status = lines.front();
    // "HTTP/1.1 200 OK"
    if (status.size() < 12 || status.compare(0, 7, "HTTP/1.") != 0 ||
        (status[7] != '0' && status[7] != '1') || status[8] != ' ' ||
        !std::isdigit(static_cast<unsigned char>(status[9])) ||
        !std::isdigit(static_cast<unsigned char>(status[10])) ||
        !std::isdigit(static_cast<unsigned char>(status[11])) ||
        (status.size() > 12 && status[12] != ' '))
      throw protocolError("bad status line");
    http11 = status[7] == '1';
    const int code = std::stoi(status.substr(9, 3));
    if (code < 100 || code > 599) throw protocolError("bad status " + std::to_string(code));
    for (std::size_t i = 1; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (line.front() == ' ' || line.front() == '\t') {  // obsolete folding
        if (!headers.empty()) {
          // Two appends, not `+= " " + trim(...)`: GCC 12 at -O3 reports a
          // false -Wrestrict on the temporary concatenation.
          std::string& value = headers.back().second;
          value += ' ';
          value += trim(line);
        }
        continue;
      }
      const auto colon = line.find(':');
      if (colon == std::string::npos || colon == 0) throw protocolError("bad header line");
      headers.emplace_back(lower(line.substr(0, colon)), trim(line.substr(colon + 1)));
    }
    out_.status = code;
  }

  // Adds body bytes; false once more than readCap arrived (the answer is cut).
  bool keep(const char* data, std::size_t size) {
    if (out_.body.size() < options_.keepBytes)
      out_.body.append(data, std::min(size, options_.keepBytes - out_.body.size()));
    bodyBytes_ += size;
    if (bodyBytes_ > options_.readCap) {
      out_.error = "answer larger than " + std::to_string(options_.readCap) + " bytes: cut";
      return false;
    }
    return true;
  }

  bool readLength(std::uint64_t length) {
    while (length > 0) {
      if (buffer_.empty() && !fill())
        throw HttpsFailure(HttpsFailure::Kind::kClosed, "connection closed in the answer body");
      const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(length, buffer_.size()));
      const bool more = keep(buffer_.data(), take);
      buffer_.erase(0, take);
      length -= take;
      if (!more) return false;
    }
    return true;
  }

  std::string readLine(std::size_t cap) {
    std::size_t nl = buffer_.find('\n');
    while (nl == std::string::npos) {
      if (buffer_.size() > cap) throw protocolError("chunk line too long");
      if (!fill())
        throw HttpsFailure(HttpsFailure::Kind::kClosed, "connection closed in the answer body");
      nl = buffer_.find('\n');
    }
    if (nl > cap) throw protocolError("chunk line too long");
    std::string line = buffer_.substr(0, nl);
    buffer_.erase(0, nl + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
  }

  bool readChunked() {
    for (;;) {
      const std::string line = readLine(kLineCap);
      const std::string size = trim(line.substr(0, line.find(';')));
      if (size.empty() || size.size() > 15 || !std::all_of(size.begin(), size.end(), [](char c) {
            return std::isxdigit(static_cast<unsigned char>(c)) != 0;
          }))
        throw protocolError("bad chunk size");
      const std::uint64_t length = std::stoull(size, nullptr, 16);
      if (length == 0) break;
      if (!readLength(length)) return false;
      if (!readLine(kLineCap).empty()) throw protocolError("bad chunk end");
    }
    std::size_t trailers = 0;
    for (;;) {
      const std::string line = readLine(kLineCap);
      if (line.empty()) return true;
      trailers += line.size();
      if (trailers > kHeaderCap) throw protocolError("trailers too long");
    }
  }

  void readUntilClose() {
    for (;;) {
      if (!buffer_.empty()) {
        const bool more = keep(buffer_.data(), buffer_.size());
        buffer_.clear();
        if (!more) return;
      }
      if (!fill()) return;
    }
  }

  HttpsConnection& connection_;
  Deadline deadline_;
  const HttpsSender::Options& options_;
  Exchange& out_;
  std::string buffer_;
  std::uint64_t bodyBytes_ = 0;
};

// One request and its answer on `connection`. Throws HttpsFailure; `out`
// keeps what came before the failure.
void exchange(HttpsConnection& connection, const std::string& wire, Deadline deadline,
              const HttpsSender::Options& options, Exchange& out) {
  connection.writeAll(wire, deadline);
  AnswerReader(connection, deadline, options, out).read();
}

std::string poolKey(const TargetUrl& url, const Poco::Net::IPAddress& address) {
  return url.host + "\n" + std::to_string(url.port) + "\n" + address.toString();
}

}  // namespace

struct HttpsSender::Impl {
  struct Idle {
    std::string key;
    std::unique_ptr<HttpsConnection> connection;
    Clock::time_point since;
  };

  Options options;
  Poco::Net::Context::Ptr context;
  std::mutex mutex;
  std::deque<Idle> idle;  // oldest first

  // An idle connection for `key` that still looks open, or null.
  std::unique_ptr<HttpsConnection> take(const std::string& key) {
    for (;;) {
      std::vector<std::unique_ptr<HttpsConnection>> dropped;  // closed outside the lock
      std::unique_ptr<HttpsConnection> found;
      {
        std::lock_guard<std::mutex> lock(mutex);
        const auto now = Clock::now();
        while (!idle.empty() && now - idle.front().since > kIdleMaxAge) {
          dropped.push_back(std::move(idle.front().connection));
          idle.pop_front();
        }
        for (auto it = idle.rbegin(); it != idle.rend(); ++it) {
          if (it->key != key) continue;
          found = std::move(it->connection);
          idle.erase(std::next(it).base());
          break;
        }
      }
      if (!found) return nullptr;
      if (found->idleAndOpen()) return found;
      dropped.push_back(std::move(found));
    }
  }

  void put(const std::string& key, std::unique_ptr<HttpsConnection> connection) {
    std::vector<std::unique_ptr<HttpsConnection>> dropped;
    std::lock_guard<std::mutex> lock(mutex);
    const auto sameKey = std::count_if(idle.begin(), idle.end(),
                                       [&](const Idle& entry) { return entry.key == key; });
    if (static_cast<std::size_t>(sameKey) >= kIdlePerTarget) {
      const auto oldest = std::find_if(idle.begin(), idle.end(),
                                       [&](const Idle& entry) { return entry.key == key; });
      dropped.push_back(std::move(oldest->connection));
      idle.erase(oldest);
    }
    idle.push_back(Idle{key, std::move(connection), Clock::now()});
    if (idle.size() > kIdleTotal) {
      dropped.push_back(std::move(idle.front().connection));
      idle.pop_front();
    }
  }
};

HttpsSender::HttpsSender(Options options) : impl_(std::make_unique<Impl>()) {
  static std::once_flag sslInitialized;
  std::call_once(sslInitialized, [] { Poco::Net::initializeSSL(); });
  impl_->options = std::move(options);
  impl_->context = makeClientContext(impl_->options.caFile);
}

HttpsSender::~HttpsSender() {
  SigPipeBlock block;
  impl_.reset();
}

AttemptResult HttpsSender::send(const AttemptRequest& request) {
  const Options& options = impl_->options;
  AttemptResult result;
  result.attemptedAt = std::chrono::duration_cast<std::chrono::microseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  const Deadline deadline = Clock::now() + options.timeout;
  SigPipeBlock block;

  if (hasLineBreak(request.event) || hasLineBreak(request.deliveryId)) {
    result.error = "invalid event or delivery id";
    return result;
  }
  TargetGuard::Resolved target;
  try {
    // The lookup is part of the attempt's one deadline.
    target = TargetGuard(options.allowPrivateTargets,
                         std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()))
                 .resolveForDelivery(request.url, request.companyId);
  } catch (const TargetRefused& e) {
    result.error = std::string("refused target: ") + e.what();
    return result;
  } catch (const TargetUnresolved& e) {
    result.error = e.what();
    result.timedOut = e.timedOut;
    return result;
  }

  // Signed now, for this attempt.
  const std::int64_t unixSeconds = std::chrono::duration_cast<std::chrono::seconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count();
  const std::string wire = buildRequest(target.url, request, unixSeconds, options.userAgent);

  auto finish = [&](Exchange& done, const std::string& key,
                    std::unique_ptr<HttpsConnection> connection) {
    result.status = done.status;
    result.body = std::move(done.body);
    result.error = std::move(done.error);
    result.timedOut = done.timedOut;
    result.retryAfter = std::move(done.retryAfter);
    if (done.reusable && result.error.empty()) impl_->put(key, std::move(connection));
    return result;
  };

  // A kept-alive connection to one of the checked addresses first. If it
  // fails before any byte of answer (the receiver closed it meanwhile), the
  // request goes once more on a fresh connection.
  for (const auto& address : target.addresses) {
    const std::string key = poolKey(target.url, address);
    std::unique_ptr<HttpsConnection> connection = impl_->take(key);
    if (!connection) continue;
    Exchange done;
    try {
      exchange(*connection, wire, deadline, options, done);
      return finish(done, key, std::move(connection));
    } catch (const HttpsFailure& failure) {
      if (done.anyByte || failure.kind == HttpsFailure::Kind::kTimedOut) {
        if (done.error.empty()) done.error = failure.what();
        done.timedOut = failure.kind == HttpsFailure::Kind::kTimedOut;
        done.reusable = false;
        return finish(done, key, nullptr);
      }
    }
    break;
  }

  std::string lastError = "no address to connect to";
  for (const auto& address : target.addresses) {
    const std::string key = poolKey(target.url, address);
    std::unique_ptr<HttpsConnection> connection;
    try {
      connection = std::make_unique<HttpsConnection>(impl_->context, address, target.url.port,
                                                     target.url.host, deadline);
    } catch (const HttpsFailure& failure) {
      lastError = failure.what();
      result.timedOut = failure.kind == HttpsFailure::Kind::kTimedOut;
      if (failure.kind == HttpsFailure::Kind::kConnect) continue;  // the next address
      break;
    }
    Exchange done;
    try {
      exchange(*connection, wire, deadline, options, done);
    } catch (const HttpsFailure& failure) {
      if (done.error.empty()) done.error = failure.what();
      done.timedOut = failure.kind == HttpsFailure::Kind::kTimedOut;
      done.reusable = false;
    }
    return finish(done, key, std::move(connection));
  }
  result.error = lastError;
  return result;
}

}  // namespace rapport::webhooks
