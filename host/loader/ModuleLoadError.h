// The one error the module loader throws. Its what() is a single line meant
// for the operator (printed as the reason start-up failed): it names the
// module or file and, for mismatches, the expected and the actual values.
// Tests assert these texts exactly; see ModuleLoader.h for the formats.
#pragma once

#include <stdexcept>

namespace rapport::host {

class ModuleLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace rapport::host
