// The generated list itself (see generate_common_passwords.py): the common
// passwords of 8 to 128 characters, ASCII lower-cased, unique and sorted
// bytewise. Defined in the build folder's common_passwords.gen.cpp; read it
// through CommonPasswords.h.
#pragma once

#include <cstddef>
#include <string_view>

namespace rapport::host::accounts::passwords::generated {

extern const std::string_view kCommonPasswords[];
extern const std::size_t kCommonPasswordCount;

}  // namespace rapport::host::accounts::passwords::generated
