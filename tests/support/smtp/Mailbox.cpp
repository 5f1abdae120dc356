#include "support/smtp/Mailbox.h"

#include <Poco/Net/MailMessage.h>
#include <Poco/Net/PartHandler.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace rapport::test::smtp {

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

std::vector<Mail> waitForMailTo(const std::string& dir, const std::string& to, std::size_t count,
                                std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    std::vector<Mail> mine;
    for (Mail& m : readMailbox(dir)) {
      if (m.to.find(to) != std::string::npos) mine.push_back(std::move(m));
    }
    if (mine.size() >= count) return mine;
    if (std::chrono::steady_clock::now() >= deadline) {
      throw std::runtime_error("fewer than " + std::to_string(count) + " mails to " + to + " in " +
                               dir);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace rapport::test::smtp
