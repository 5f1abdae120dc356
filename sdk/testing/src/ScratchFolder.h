// A new temporary folder that belongs to one Harness: the SQLite file, the
// mail outbox and the secrets key live there. Removed with its contents
// when destroyed.
#pragma once

#include <filesystem>

namespace rapport::testing {

class ScratchFolder {
 public:
  // Creates <system temp>/rapport-harness-<random hex>; throws
  // std::filesystem::filesystem_error when it cannot.
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace rapport::testing
