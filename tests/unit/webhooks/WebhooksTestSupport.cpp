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

namespace webhooks_test {

std::string runCommand(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run: " + command);
  std::string out;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  if (status != 0) throw std::runtime_error("failed (" + std::to_string(status) + "): " + command);
  return out;
}

namespace {

struct PkiHolder {
  TestPki pki;
  PkiHolder() {
    // Writes to a receiver that went away must fail, not end the test run.
    std::signal(SIGPIPE, SIG_IGN);
    Poco::Net::initializeSSL();
    char pattern[] = "/tmp/rapport-webhooks-pki-XXXXXX";
    const char* dir = mkdtemp(pattern);
    if (dir == nullptr) throw std::runtime_error("mkdtemp failed");
    pki.dir = dir;
    const std::string d = pki.dir + "/";
    const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
    runCommand("openssl req -x509 " + ec + " -keyout " + d + "ca.key -out " + d +
               "ca.pem -days 2 -subj '/CN=Rapport Test CA' -addext "
               "'basicConstraints=critical,CA:TRUE' -addext "
               "'keyUsage=critical,keyCertSign,cRLSign' 2>&1");
    pki.caFile = d + "ca.pem";
    auto leaf = [&](const std::string& name, const std::string& cn, const std::string& san) {
      std::ofstream(d + name + ".ext") << "subjectAltName=" << san
                                       << "\nbasicConstraints=CA:FALSE\n"
                                          "keyUsage=critical,digitalSignature\n"
                                          "extendedKeyUsage=serverAuth\n";
      runCommand("openssl req " + ec + " -keyout " + d + name + ".key -out " + d + name +
                 ".csr -subj '/CN=" + cn + "' 2>&1");
      runCommand("openssl x509 -req -in " + d + name + ".csr -CA " + d + "ca.pem -CAkey " + d +
                 "ca.key -CAcreateserial -days 2 -out " + d + name + ".pem -extfile " + d + name +
                 ".ext 2>&1");
    };
    leaf("localhost", "localhost", "DNS:localhost,IP:127.0.0.1");
    leaf("other", "other.example", "DNS:other.example");
    pki.localhostCert = d + "localhost.pem";
    pki.localhostKey = d + "localhost.key";
    pki.otherCert = d + "other.pem";
    pki.otherKey = d + "other.key";
  }
  ~PkiHolder() {
    std::error_code ignored;
    std::filesystem::remove_all(pki.dir, ignored);
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

std::string writeTempFile(const std::string& name, const std::string& content) {
  const std::string path = testPki().dir + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

std::string opensslHmac(const std::string& key, const std::string& message) {
  static std::mutex fileMutex;
  std::lock_guard<std::mutex> lock(fileMutex);
  const std::string file = writeTempFile("message.bin", message);
  const std::string out = runCommand("openssl dgst -sha256 -hmac '" + key + "' " + file);
  // "HMAC-SHA2-256(/tmp/.../message.bin)= 5d1c..."
  const auto eq = out.rfind("= ");
  if (eq == std::string::npos) throw std::runtime_error("unexpected openssl output: " + out);
  std::string hex = out.substr(eq + 2);
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r')) hex.pop_back();
  return hex;
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
