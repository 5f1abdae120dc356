#include "support/OathTool.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace rapport::test {

std::string oathCode(const std::string& secretBase32, std::int64_t unixSeconds) {
  for (char c : secretBase32) {
    const bool base32 = (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7');
    if (!base32) throw std::invalid_argument("not an upper-case base32 secret: " + secretBase32);
  }
  const std::string command =
      "oathtool --totp -b " + secretBase32 + " --now @" + std::to_string(unixSeconds) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run oathtool");
  std::string output;
  std::array<char, 128> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe)) output += buffer.data();
  const int status = pclose(pipe);
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  if (status != 0 || output.size() != 6) {
    throw std::runtime_error("oathtool failed: " + command + " -> " + output);
  }
  return output;
}

}  // namespace rapport::test
