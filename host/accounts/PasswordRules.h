// The rules of a new password (decisions §3), shared by register and
// password change so both refuse the same passwords with the same messages:
// `password` 8 to 128 characters, kept as typed (no trimming), and equal to
// `password_confirmation`.
#pragma once

#include <string>

#include "rapport/validation.h"

namespace rapport::host::accounts {

// Reads `password` and `password_confirmation` into `v`; the returned field
// holds the password when both rules pass (after v.check()).
Field<std::string> readNewPassword(Validator& v);

}  // namespace rapport::host::accounts
