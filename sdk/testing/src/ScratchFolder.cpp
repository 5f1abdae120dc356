#include "ScratchFolder.h"

#include <system_error>

#include "rapport/ids.h"

namespace rapport::testing {

ScratchFolder::ScratchFolder()
    : path_(std::filesystem::temp_directory_path() /
            ("rapport-harness-" + rapport::randomToken(8))) {
  std::filesystem::create_directories(path_);
}

ScratchFolder::~ScratchFolder() {
  std::error_code ignored;  // a destructor must not throw; a leftover folder is harmless
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace rapport::testing
