#include "e2e/reset/Mailbox.h"

#include <Poco/Net/MailMessage.h>
#include <Poco/Net/PartHandler.h>
#include <Poco/StreamCopier.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "support/TestEnv.h"

extern char** environ;

namespace rapport::e2e::reset {

namespace {

// Keeps the decoded text and HTML parts (Poco undoes the transfer encoding).
class Parts : public Poco::Net::PartHandler {
 public:
  void handlePart(const Poco::Net::MessageHeader& header, std::istream& stream) override {
    std::string content;
    Poco::StreamCopier::copyToString(stream, content);
    const std::string type = header.get("Content-Type", "");
    if (type.rfind("text/plain", 0) == 0) text += content;
    if (type.rfind("text/html", 0) == 0) html += content;
  }
  std::string text;
  std::string html;
};

Mail readOne(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  Poco::Net::MailMessage message;
  Parts parts;
  message.read(in, parts);
  Mail mail;
  mail.file = file.string();
  mail.to = message.get("To", "");
  mail.subject = message.get("Subject", "");
  mail.text = parts.text.empty() ? message.getContent() : parts.text;
  mail.html = parts.html;
  return mail;
}

}  // namespace

std::vector<Mail> readMailbox(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".eml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Mail> mails;
  for (const auto& file : files) mails.push_back(readOne(file));
  return mails;
}

std::vector<Mail> waitForMail(const std::string& dir, std::size_t count,
                              std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    std::vector<Mail> mails = readMailbox(dir);
    if (mails.size() >= count || std::chrono::steady_clock::now() >= deadline) return mails;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string resetTokenIn(const Mail& mail) {
  static const std::regex token("(^|[^A-Za-z0-9_-])([A-Za-z0-9_-]{43})($|[^A-Za-z0-9_-])");
  std::smatch match;
  if (!std::regex_search(mail.text, match, token)) {
    throw std::runtime_error("no reset token in " + mail.file + ":\n" + mail.text);
  }
  return match[2];
}

SmtpServer::SmtpServer() {
  const std::string dir = rapport::test::tempDirectory("smtp");
  maildir_ = dir + "/maildir";
  std::filesystem::create_directories(maildir_);
  const std::string portFile = dir + "/port";
  const std::string script = rapport::test::sourceDir() + "/tests/support/smtp/smtp_server.py";
  // Debian's python3 (python3-aiosmtpd), whatever python3 comes first in PATH.
  std::vector<std::string> args = {"/usr/bin/python3", script,      "--port-file",
                                   portFile,           "--maildir", maildir_};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
    throw std::runtime_error("cannot start " + script);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(portFile);
    if (in >> port_ && port_ > 0) return;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("smtp_server.py exited before listening");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  throw std::runtime_error("smtp_server.py did not write its port within 15 s");
}

SmtpServer::~SmtpServer() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  waitpid(pid_, &status, 0);
}

}  // namespace rapport::e2e::reset
