// Role names as the API and the database spell them.
#include "rapport/roles.h"

namespace rapport {

std::string_view roleName(Role role) {
  switch (role) {
    case Role::Owner:
      return "owner";
    case Role::Admin:
      return "admin";
    case Role::Member:
      break;
  }
  return "member";
}

std::optional<Role> parseRole(std::string_view name) {
  if (name == "owner") return Role::Owner;
  if (name == "admin") return Role::Admin;
  if (name == "member") return Role::Member;
  return std::nullopt;
}

}  // namespace rapport
