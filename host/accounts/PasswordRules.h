// The rules of a new password (decisions §3), shared by register, password
// change and password reset so all three refuse the same passwords with the
// same messages: `password` 8 to 128 characters, kept as typed (no
// trimming), not one of the common passwords (passwords/CommonPasswords.h,
// compared case-insensitively), and equal to `password_confirmation`.
#pragma once

#include <string>

#include "rapport/validation.h"

namespace rapport::host::accounts {

// The 422 message on `password` for a password on the common list.
inline constexpr const char* kCommonPassword =
    "This password is too common. Please choose a less common one.";

// Reads `password` and `password_confirmation` into `v`; the returned field
// holds the password when every rule passes (after v.check()).
Field<std::string> readNewPassword(Validator& v);

}  // namespace rapport::host::accounts
