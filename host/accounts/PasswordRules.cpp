#include "accounts/PasswordRules.h"

#include "accounts/passwords/CommonPasswords.h"

namespace rapport::host::accounts {

Field<std::string> readNewPassword(Validator& v) {
  auto password = v.string("password", {.required = true, .min = 8, .max = 128, .trim = false});
  auto confirmation =
      v.string("password_confirmation", {.required = true, .max = 1024, .trim = false});
  // The value is only set when the length rule passed.
  if (password.value && passwords::isCommon(*password.value)) {
    v.fail("password", kCommonPassword);
    password.value.reset();
  }
  if (password.value && confirmation.value && *password.value != *confirmation.value) {
    v.fail("password", "The password confirmation does not match.");
  }
  return password;
}

}  // namespace rapport::host::accounts
