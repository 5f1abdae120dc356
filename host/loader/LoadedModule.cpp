#include "loader/LoadedModule.h"

#include <utility>

namespace rapport::host {

LoadedModule& LoadedModule::operator=(LoadedModule&& other) noexcept {
  if (this != &other) {
    module.reset();  // our object first, while our library is still loaded
    info = std::move(other.info);
    version = std::move(other.version);
    name = std::move(other.name);
    file = std::move(other.file);
    module = std::move(other.module);
    library = std::move(other.library);  // may release our old library: nothing uses it now
  }
  return *this;
}

LoadedModule::~LoadedModule() {
  // Members go in reverse order anyway (module before library); say it here.
  module.reset();
}

}  // namespace rapport::host
