#include "support/webhooks/Receiver.h"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SSLManager.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/String.h>
#include <Poco/ThreadPool.h>
#include <Poco/URI.h>

#include <condition_variable>
#include <csignal>
#include <deque>
#include <map>
#include <mutex>

#include "support/TestCa.h"

namespace rapport::test::webhooks {

// ---------------------------------------------------------------- requests

std::string ReceivedRequest::header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (Poco::icompare(key, name) == 0) return value;
  }
  return {};
}

std::size_t ReceivedRequest::headerCount(const std::string& name) const {
  std::size_t n = 0;
  for (const auto& header : headers) {
    if (Poco::icompare(header.first, name) == 0) ++n;
  }
  return n;
}

Answer Answer::status(int code, std::string body) {
  Answer answer;
  answer.code = code;
  answer.body = std::move(body);
  return answer;
}

Answer Answer::with(std::string name, std::string value) const {
  Answer answer = *this;
  answer.headers.emplace_back(std::move(name), std::move(value));
  return answer;
}

Answer Answer::hang() {
  Answer answer;
  answer.kind = Kind::Hang;
  return answer;
}

Answer Answer::redirect(std::string location) {
  Answer answer;
  answer.kind = Kind::Redirect;
  answer.code = 301;
  answer.body.clear();
  answer.location = std::move(location);
  return answer;
}

Answer Answer::endless(int code) {
  Answer answer;
  answer.kind = Kind::Endless;
  answer.code = code;
  answer.body.clear();
  return answer;
}

// ---------------------------------------------------------------- state

struct Receiver::State {
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  std::vector<ReceivedRequest> requests;
  std::map<std::string, std::deque<Answer>> scripts;
  // Incremented by releaseHangs() and stop(): a hanging request waits for a
  // generation other than the one it started in.
  std::uint64_t generation = 0;
  bool closing = false;  // the receiver is being destroyed
  std::vector<std::uint64_t> endlessBytes;

  Answer next(const std::string& path) {
    auto it = scripts.find(path);
    if (it == scripts.end() || it->second.empty()) return Answer::status(200, "ok");
    Answer answer = it->second.front();
    if (it->second.size() > 1) it->second.pop_front();
    return answer;
  }
};

namespace {

constexpr std::size_t kMaxBody = 16 * 1024 * 1024;
// An endless answer stops on its own after this much (a peer that never
// closes must not keep a test running).
constexpr std::uint64_t kEndlessLimit = 4ull * 1024 * 1024 * 1024;
// A hang ends on its own after this long.
constexpr auto kHangLimit = std::chrono::seconds(300);

void sendStatus(Poco::Net::HTTPServerResponse& response, int status, const std::string& body) {
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  response.setContentType("text/plain");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.send() << body;
}

class RecordingHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit RecordingHandler(std::shared_ptr<Receiver::State> state) : state_(std::move(state)) {}

  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    try {
      handle(request, response);
    } catch (...) {
      // The peer went away (time-out, cut answer): nothing to answer.
    }
  }

 private:
  void handle(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
    ReceivedRequest received;
    received.method = request.getMethod();
    received.uri = request.getURI();
    received.path = Poco::URI(received.uri).getPath();
    for (const auto& [name, value] : request) received.headers.emplace_back(name, value);
    std::istream& in = request.stream();
    char buffer[8192];
    while (in && received.body.size() < kMaxBody) {
      in.read(buffer, sizeof buffer);
      received.body.append(buffer, static_cast<std::size_t>(in.gcount()));
    }
    received.receivedAt = std::chrono::steady_clock::now();

    Answer answer;
    std::uint64_t generation = 0;
    {
      std::lock_guard lock(state_->mutex);
      answer = state_->next(received.path);
      generation = state_->generation;
      state_->requests.push_back(std::move(received));
    }
    state_->changed.notify_all();

    switch (answer.kind) {
      case Answer::Kind::Status:
        for (const auto& [name, value] : answer.headers) response.set(name, value);
        sendStatus(response, answer.code, answer.body);
        return;
      case Answer::Kind::Redirect:
        response.set("Location", answer.location);
        sendStatus(response, answer.code, answer.body);
        return;
      case Answer::Kind::Hang: {
        std::unique_lock lock(state_->mutex);
        state_->changed.wait_for(
            lock, kHangLimit, [&] { return state_->closing || state_->generation != generation; });
        lock.unlock();
        sendStatus(response, 200, "late");
        return;
      }
      case Answer::Kind::Endless: {
        std::uint64_t written = 0;
        try {
          response.setStatusAndReason(
              static_cast<Poco::Net::HTTPResponse::HTTPStatus>(answer.code));
          response.setContentType("text/plain");
          response.setChunkedTransferEncoding(true);
          std::ostream& out = response.send();
          const std::string chunk(16 * 1024, 'x');
          while (out.good() && written < kEndlessLimit) {
            {
              std::lock_guard lock(state_->mutex);
              if (state_->closing || state_->generation != generation) break;
            }
            out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
            out.flush();
            if (out.good()) written += chunk.size();
          }
        } catch (...) {
        }
        {
          std::lock_guard lock(state_->mutex);
          state_->endlessBytes.push_back(written);
        }
        state_->changed.notify_all();
        return;
      }
    }
  }

  std::shared_ptr<Receiver::State> state_;
};

class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(std::shared_ptr<Receiver::State> state) : state_(std::move(state)) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new RecordingHandler(state_);
  }

 private:
  std::shared_ptr<Receiver::State> state_;
};

Poco::Net::Context::Ptr serverContext() {
  static std::once_flag once;
  std::call_once(once, [] {
    Poco::Net::initializeSSL();
    // A peer that closes while an answer is written must not end the test
    // process (OpenSSL writes with write(2), not send(MSG_NOSIGNAL)).
    std::signal(SIGPIPE, SIG_IGN);
  });
  const rapport::test::Certificates& ca = rapport::test::testCertificates();
  return new Poco::Net::Context(Poco::Net::Context::SERVER_USE, ca.keyFile, ca.certFile, "",
                                Poco::Net::Context::VERIFY_NONE);
}

}  // namespace

// ---------------------------------------------------------------- receiver

struct Receiver::Server {
  Poco::ThreadPool pool{2, 128, 60};
  std::unique_ptr<Poco::Net::HTTPServer> http;
};

Receiver::Receiver() : state_(std::make_shared<State>()), server_(std::make_unique<Server>()) {
  listen();
}

Receiver::~Receiver() {
  {
    std::lock_guard lock(state_->mutex);
    state_->closing = true;
  }
  state_->changed.notify_all();
  try {
    stop();
    server_->pool.joinAll();
  } catch (...) {
  }
}

void Receiver::listen() {
  Poco::Net::SecureServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", port_), 64,
                                       serverContext());
  port_ = socket.address().port();
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(128);
  params->setMaxQueued(256);
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(10, 0));
  params->setMaxKeepAliveRequests(10000);
  server_->http =
      std::make_unique<Poco::Net::HTTPServer>(new Factory(state_), server_->pool, socket, params);
  server_->http->start();
}

std::string Receiver::url(const std::string& path) const {
  return "https://localhost:" + std::to_string(port_) + path;
}

void Receiver::script(const std::string& path, std::vector<Answer> answers) {
  std::lock_guard lock(state_->mutex);
  state_->scripts[path] = std::deque<Answer>(answers.begin(), answers.end());
}

void Receiver::stop() {
  {
    std::lock_guard lock(state_->mutex);
    ++state_->generation;
  }
  state_->changed.notify_all();
  if (server_->http) {
    server_->http->stopAll(true);
    server_->http.reset();  // closes the listening socket
  }
}

void Receiver::start() {
  if (!server_->http) listen();
}

bool Receiver::listening() const {
  return server_->http != nullptr;
}

void Receiver::releaseHangs() {
  {
    std::lock_guard lock(state_->mutex);
    ++state_->generation;
  }
  state_->changed.notify_all();
}

std::vector<ReceivedRequest> Receiver::requests(const std::string& path) const {
  std::lock_guard lock(state_->mutex);
  std::vector<ReceivedRequest> out;
  for (const auto& request : state_->requests) {
    if (path.empty() || request.path == path) out.push_back(request);
  }
  return out;
}

std::size_t Receiver::count(const std::string& path) const {
  std::lock_guard lock(state_->mutex);
  if (path.empty()) return state_->requests.size();
  std::size_t n = 0;
  for (const auto& request : state_->requests) n += request.path == path ? 1 : 0;
  return n;
}

bool Receiver::waitForRequests(std::size_t n, std::chrono::milliseconds timeout,
                               const std::string& path) const {
  std::unique_lock lock(state_->mutex);
  return state_->changed.wait_for(lock, timeout, [&] {
    std::size_t seen = 0;
    for (const auto& request : state_->requests) {
      seen += (path.empty() || request.path == path) ? 1 : 0;
    }
    return seen >= n;
  });
}

bool Receiver::waitForEndlessDone(std::size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(state_->mutex);
  return state_->changed.wait_for(lock, timeout, [&] { return state_->endlessBytes.size() >= n; });
}

std::vector<std::uint64_t> Receiver::endlessBytes() const {
  std::lock_guard lock(state_->mutex);
  return state_->endlessBytes;
}

}  // namespace rapport::test::webhooks
