#include "WebhooksTestSupport.h"

#include <Poco/Net/Context.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/NetSSL.h>
#include <Poco/Net/SecureServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/StreamCopier.h>
#include <Poco/String.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "support/TestCa.h"

namespace webhooks_test {

namespace {

struct PkiHolder {
  TestPki pki;
  PkiHolder() {
    // Writes to a receiver that went away must fail, not end the test run.
    std::signal(SIGPIPE, SIG_IGN);
    Poco::Net::initializeSSL();
    const rapport::test::Certificates local = rapport::test::makeCertificates("webhooks-pki");
    const rapport::test::Certificates other =
        rapport::test::signedBySameCa(local, "other", "DNS:other.example");
    pki.dir = std::filesystem::path(local.caFile).parent_path().string();
    pki.caFile = local.caFile;
    pki.localhostCert = local.certFile;
    pki.localhostKey = local.keyFile;
    pki.otherCert = other.certFile;
    pki.otherKey = other.keyFile;
  }
};

PkiHolder& holder() {
  static PkiHolder instance;
  return instance;
}

}  // namespace

const TestPki& testPki() {
  return holder().pki;
}

std::string opensslHmac(const std::string& key, const std::string& message) {
  return rapport::test::opensslHmacSha256(key, message);
}

std::string Received::header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (Poco::icompare(key, name) == 0) return value;
  }
  return "";
}

int Received::count(const std::string& name) const {
  int n = 0;
  for (const auto& entry : headers) {
    if (Poco::icompare(entry.first, name) == 0) ++n;
  }
  return n;
}

class RecordingHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit RecordingHandler(TestReceiver& receiver) : receiver_(receiver) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) override {
    Received got;
    got.method = request.getMethod();
    got.uri = request.getURI();
    for (const auto& entry : request) got.headers.emplace_back(entry.first, entry.second);
    Poco::StreamCopier::copyToString(request.stream(), got.body);
    int index = 0;
    {
      std::lock_guard<std::mutex> lock(receiver_.mutex_);
      receiver_.received_.push_back(std::move(got));
      index = static_cast<int>(receiver_.received_.size());
    }
    receiver_.handler_(index, request, response, receiver_);
  }

 private:
  TestReceiver& receiver_;
};

namespace {
class Factory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Factory(TestReceiver& receiver) : receiver_(receiver) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(
      const Poco::Net::HTTPServerRequest&) override {
    return new RecordingHandler(receiver_);
  }

 private:
  TestReceiver& receiver_;
};
}  // namespace

TestReceiver::TestReceiver(const std::string& certFile, const std::string& keyFile, Handler handler)
    : handler_(std::move(handler)) {
  testPki();  // SSL initialised, SIGPIPE ignored
  Poco::Net::Context::Ptr context = new Poco::Net::Context(
      Poco::Net::Context::SERVER_USE, keyFile, certFile, "", Poco::Net::Context::VERIFY_NONE);
  Poco::Net::SecureServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0), 64, context);
  port_ = socket.address().port();
  auto* params = new Poco::Net::HTTPServerParams;
  params->setKeepAlive(true);
  params->setKeepAliveTimeout(Poco::Timespan(30, 0));
  params->setMaxKeepAliveRequests(100);
  params->setTimeout(Poco::Timespan(30, 0));
  params->setMaxThreads(8);
  pool_ = std::make_unique<Poco::ThreadPool>(2, 8);
  server_ = std::make_unique<Poco::Net::HTTPServer>(new Factory(*this), *pool_, socket, params);
  server_->start();
}

TestReceiver::~TestReceiver() {
  release();
  server_->stopAll(true);
  pool_->joinAll();
}

std::string TestReceiver::url(const std::string& host, const std::string& path) const {
  return "https://" + host + ":" + std::to_string(port_) + path;
}

int TestReceiver::connections() const {
  return server_->totalConnections();
}

std::vector<Received> TestReceiver::received() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return received_;
}

void TestReceiver::release() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    released_ = true;
  }
  releasedCv_.notify_all();
}

bool TestReceiver::waitReleased(std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mutex_);
  return releasedCv_.wait_for(lock, limit, [&] { return released_.load(); });
}

}  // namespace webhooks_test
