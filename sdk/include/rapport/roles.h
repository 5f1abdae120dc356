// Roles of a user in a tenant company (decisions §2): owner, admin, member.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rapport/export.h"

namespace rapport {

enum class Role { Member = 0, Admin = 1, Owner = 2 };

RAPPORT_SDK_API std::string_view roleName(Role role);
RAPPORT_SDK_API std::optional<Role> parseRole(std::string_view name);

}  // namespace rapport
