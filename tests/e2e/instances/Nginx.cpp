#include "e2e/instances/Nginx.h"

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/TestEnv.h"

extern char** environ;

namespace rapport::e2e {
namespace {

std::string nginxBinary() {
  for (const char* path : {"/usr/sbin/nginx", "/usr/bin/nginx"}) {
    if (std::filesystem::exists(path)) return path;
  }
  throw std::runtime_error("nginx not found (apt-get install nginx-light)");
}

// A loopback port that was free a moment ago (nginx may lose it to another
// process: start() then fails and is tried again on another).
int freePort() {
  Poco::Net::ServerSocket socket(Poco::Net::SocketAddress("127.0.0.1", 0));
  const int port = socket.address().port();
  socket.close();
  return port;
}

bool accepts(int port) {
  try {
    Poco::Net::StreamSocket socket;
    socket.connect(Poco::Net::SocketAddress("127.0.0.1", static_cast<Poco::UInt16>(port)),
                   Poco::Timespan(0, 200'000));
    return true;
  } catch (const Poco::Exception&) {
    return false;
  }
}

void writeConfig(const std::string& prefix, int port, const std::vector<int>& upstreams) {
  std::ofstream out(prefix + "/nginx.conf");
  if (getuid() == 0) out << "user root;\n";
  out << "worker_processes 1;\n"
      << "daemon off;\n"
      << "pid " << prefix << "/nginx.pid;\n"
      << "error_log " << prefix << "/error.log warn;\n"
      << "events { worker_connections 256; }\n"
      << "http {\n"
      << "  access_log off;\n"
      << "  client_body_temp_path " << prefix << "/tmp/body;\n"
      << "  proxy_temp_path " << prefix << "/tmp/proxy;\n"
      << "  fastcgi_temp_path " << prefix << "/tmp/fastcgi;\n"
      << "  uwsgi_temp_path " << prefix << "/tmp/uwsgi;\n"
      << "  scgi_temp_path " << prefix << "/tmp/scgi;\n"
      << "  upstream rapport {\n";
  for (int upstream : upstreams) out << "    server 127.0.0.1:" << upstream << ";\n";
  out << "    keepalive 16;\n"
      << "  }\n"
      << "  server {\n"
      << "    listen 127.0.0.1:" << port << ";\n"
      << "    location / {\n"
      << "      proxy_pass http://rapport;\n"
      << "      proxy_http_version 1.1;\n"
      << "      proxy_set_header Connection \"\";\n"
      << "      proxy_set_header Host $host;\n"
      << "      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n"
      << "    }\n"
      << "  }\n"
      << "}\n";
}

}  // namespace

Nginx::Nginx(const std::vector<int>& upstreams) : prefix_(rapport::test::tempDirectory("nginx")) {
  std::filesystem::create_directories(prefix_ + "/tmp");
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (start(freePort(), upstreams)) return;
  }
  throw std::runtime_error("nginx did not start:\n" + errorLog());
}

Nginx::~Nginx() {
  stop();
}

bool Nginx::start(int port, const std::vector<int>& upstreams) {
  writeConfig(prefix_, port, upstreams);
  const std::string binary = nginxBinary();
  const std::string conf = prefix_ + "/nginx.conf";
  const std::string errors = prefix_ + "/error.log";
  // -e: the error log before the configuration is read (not /var/log/nginx).
  std::vector<std::string> args = {binary, "-p", prefix_, "-c", conf, "-e", errors};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, binary.c_str(), nullptr, nullptr, argv.data(), environ) != 0) {
    throw std::runtime_error("cannot run " + binary);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {  // exited: the port was taken, or worse
      pid_ = -1;
      return false;
    }
    if (accepts(port)) {
      port_ = port;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop();
  return false;
}

void Nginx::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string Nginx::errorLog() const {
  std::ifstream in(prefix_ + "/error.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace rapport::e2e
