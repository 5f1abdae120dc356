#include "loader/ModuleLists.h"

#include <string_view>

namespace rapport::host {
namespace {

std::vector<std::string> split(std::string_view text, std::string_view separators) {
  constexpr std::string_view kSpace = " \t\r\n";
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find_first_of(separators, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    const std::size_t first = item.find_first_not_of(kSpace);
    if (first != std::string_view::npos) {
      const std::size_t last = item.find_last_not_of(kSpace);
      items.emplace_back(item.substr(first, last - first + 1));
    }
    start = end + 1;
  }
  return items;
}

}  // namespace

std::vector<std::filesystem::path> splitModuleDirs(const std::string& value) {
  std::vector<std::filesystem::path> dirs;
  for (std::string& item : split(value, ":,")) dirs.emplace_back(std::move(item));
  return dirs;
}

std::vector<std::string> splitList(const std::string& commaList) {
  return split(commaList, ",");
}

}  // namespace rapport::host
