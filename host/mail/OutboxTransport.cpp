#include "mail/OutboxTransport.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "rapport/time.h"

namespace rapport::host::mail {

namespace {

std::runtime_error systemError(const std::string& what, const std::string& path) {
  return std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

// "2026-11-23T22:56:52.123456Z" -> "20261123T225652.123456Z" (sortable, no colons).
std::string compactTimestamp(const std::string& iso) {
  std::string out;
  for (char c : iso) {
    if (c != '-' && c != ':') out.push_back(c);
  }
  return out;
}

void writeAll(int fd, const std::string& data, const std::string& path) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw systemError("cannot write", path);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

OutboxTransport::OutboxTransport(std::string folder) : folder_(std::move(folder)) {
  std::error_code ec;
  const std::filesystem::path path(folder_);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (::mkdir(folder_.c_str(), 0700) != 0 && errno != EEXIST) {
    throw systemError("cannot create mail.outbox", folder_);
  }
  struct stat st {};
  if (::stat(folder_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw std::runtime_error("mail.outbox " + folder_ + " is not a folder");
  }
}

void OutboxTransport::deliver(const Envelope& envelope, const PointOfNoReturn& pointOfNoReturn) {
  char seq[16];
  std::snprintf(seq, sizeof seq, "%06llu", static_cast<unsigned long long>(++sequence_ % 1000000));
  const std::string name = compactTimestamp(rapport::isoTimestamp(rapport::nowMicros())) + "-" +
                           seq + "-" + envelope.id + ".eml";
  const std::string finalPath = folder_ + "/" + name;
  const std::string tempPath = folder_ + "/." + name + ".tmp";
  const int fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw systemError("cannot create", tempPath);
  try {
    writeAll(fd, envelope.mime, tempPath);
    if (::fsync(fd) != 0) throw systemError("cannot sync", tempPath);
  } catch (...) {
    ::close(fd);
    ::unlink(tempPath.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    ::unlink(tempPath.c_str());
    throw systemError("cannot close", tempPath);
  }
  // A hidden temporary file is no delivery: the rename is the point of no return.
  try {
    pointOfNoReturn();
  } catch (...) {
    ::unlink(tempPath.c_str());
    throw;
  }
  if (::rename(tempPath.c_str(), finalPath.c_str()) != 0) {
    const auto error = systemError("cannot rename to", finalPath);
    ::unlink(tempPath.c_str());
    throw error;
  }
}

}  // namespace rapport::host::mail
