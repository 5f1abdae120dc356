#include "support/smtp/SmtpServer.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Poco/Pipe.h>
#include <Poco/PipeStream.h>
#include <Poco/Process.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "rapport/json.h"
#include "support/TestEnv.h"

namespace rapport::test::smtp {

namespace fs = std::filesystem;

namespace {

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string SmtpServer::python() {
  return ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

std::string SmtpServer::scriptPath() {
  return rapport::test::sourceDir() + "/tests/support/smtp/smtp_server.py";
}

const Certificates& SmtpServer::certificates() {
  return rapport::test::testCertificates();
}

const Certificates& SmtpServer::untrustedCertificates() {
  static const Certificates c = rapport::test::makeCertificates("smtp-untrusted-ca");
  return c;
}

const Certificates& SmtpServer::wrongNameCertificates() {
  static const Certificates c =
      rapport::test::makeCertificates("smtp-wrong-name-ca", "DNS:mail.other.test");
  return c;
}

ReceivedMail readMail(const std::string& emlPath) {
  ReceivedMail mail;
  mail.path = emlPath;
  mail.raw = readText(emlPath);
  const std::string script = rapport::test::sourceDir() + "/tests/support/smtp/read_mail.py";
  const rapport::Json parsed =
      rapport::Json::parse(rapport::test::runTool(SmtpServer::python(), {script, emlPath}));
  mail.from = parsed["from"].asString();
  mail.to = parsed["to"].asString();
  mail.subject = parsed["subject"].asString();
  mail.date = parsed["date"].asString();
  mail.messageId = parsed["message_id"].asString();
  mail.contentType = parsed["content_type"].asString();
  mail.text = parsed["text"].asString();
  mail.html = parsed["html"].asString();
  if (!parsed["defects"].asArray().empty()) {
    throw std::runtime_error("Python's email package found defects in " + emlPath);
  }
  fs::path envelope(emlPath);
  envelope.replace_extension(".json");
  if (fs::exists(envelope)) {
    const rapport::Json meta = rapport::Json::parse(readText(envelope.string()));
    mail.mailFrom = meta["mail_from"].asString();
    for (const auto& r : meta["rcpt_tos"].asArray()) mail.rcptTos.push_back(r.asString());
    mail.tls = meta["tls"].asBool();
    if (!meta["auth_user"].isNull()) mail.authUser = meta["auth_user"].asString();
  }
  return mail;
}

SmtpServer::SmtpServer(Options options) {
  dir_ = rapport::test::tempDirectory("smtp");
  maildir_ = dir_ + "/maildir";
  logPath_ = dir_ + "/smtp.log";
  const std::string portFile = dir_ + "/port";
  std::vector<std::string> args = {python(), scriptPath(), "--port-file",
                                   portFile, "--maildir",  maildir_};
  if (options.starttls) {
    const Certificates& c = certificates();
    args.insert(args.end(), {"--starttls", options.certFile.empty() ? c.certFile : options.certFile,
                             options.keyFile.empty() ? c.keyFile : options.keyFile});
  }
  if (options.requireStarttls) args.push_back("--require-starttls");
  if (!options.auth.empty()) args.insert(args.end(), {"--auth", options.auth});
  if (options.delaySeconds > 0) {
    args.insert(args.end(), {"--delay", std::to_string(options.delaySeconds)});
  }
  for (const auto& address : options.rejectRcpt) {
    args.insert(args.end(), {"--reject-rcpt", address});
  }
  if (options.failFirst > 0) {
    args.insert(args.end(), {"--fail-first", std::to_string(options.failFirst)});
  }

  // Everything the child needs is built before fork (only async-signal-safe
  // calls between fork and exec: tests may spawn from several threads).
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int logFd = ::open(logPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (logFd < 0) throw std::runtime_error("cannot create " + logPath_);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(logFd);
    throw std::runtime_error("fork failed");
  }
  if (pid == 0) {
    ::dup2(logFd, STDOUT_FILENO);
    ::dup2(logFd, STDERR_FILENO);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(logFd);
  pid_ = pid;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  for (;;) {
    const std::string text = readText(portFile);
    if (!text.empty()) {
      port_ = std::stoi(text);
      return;
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("the test SMTP server exited at start:\n" + log());
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("the test SMTP server did not listen within 15 s:\n" + log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

SmtpServer::~SmtpServer() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<std::string> SmtpServer::files() const {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(maildir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".eml" && name.front() != '.') {
      out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<ReceivedMail> SmtpServer::waitForMessages(std::size_t count,
                                                      std::chrono::milliseconds limit) const {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    std::vector<std::string> paths = files();
    if (paths.size() >= count) {
      std::vector<ReceivedMail> mails;
      for (std::size_t i = 0; i < count; ++i) mails.push_back(readMail(paths[i]));
      return mails;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("the test SMTP server received " + std::to_string(paths.size()) +
                               " message(s), expected " + std::to_string(count) + ":\n" + log());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string SmtpServer::log() const {
  return readText(logPath_);
}

}  // namespace rapport::test::smtp
