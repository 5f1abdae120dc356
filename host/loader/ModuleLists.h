// Splitting the configuration values that name modules and where they live.
//   modules.dir      "build/modules:/opt/rapport/modules" (':' or ',' separated)
//   modules.enabled  "contacts, companies, deals"          (',' separated)
// Items are trimmed of surrounding white space; empty items are dropped.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace rapport::host {

std::vector<std::filesystem::path> splitModuleDirs(const std::string& value);
std::vector<std::string> splitList(const std::string& commaList);

}  // namespace rapport::host
