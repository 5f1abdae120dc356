#include "accounts/PasswordRules.h"

namespace rapport::host::accounts {

Field<std::string> readNewPassword(Validator& v) {
  auto password = v.string("password", {.required = true, .min = 8, .max = 128, .trim = false});
  auto confirmation =
      v.string("password_confirmation", {.required = true, .max = 1024, .trim = false});
  if (password.value && confirmation.value && *password.value != *confirmation.value) {
    v.fail("password", "The password confirmation does not match.");
  }
  return password;
}

}  // namespace rapport::host::accounts
