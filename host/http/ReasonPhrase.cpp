#include "http/ReasonPhrase.h"

#include <algorithm>
#include <array>
#include <utility>

namespace rapport::host {
namespace {

// Sorted by status for binary search.
constexpr std::array<std::pair<int, const char*>, 32> kPhrases{{
    {200, "OK"},
    {201, "Created"},
    {202, "Accepted"},
    {204, "No Content"},
    {301, "Moved Permanently"},
    {302, "Found"},
    {304, "Not Modified"},
    {400, "Bad Request"},
    {401, "Unauthorized"},
    {403, "Forbidden"},
    {404, "Not Found"},
    {405, "Method Not Allowed"},
    {406, "Not Acceptable"},
    {408, "Request Timeout"},
    {409, "Conflict"},
    {410, "Gone"},
    {411, "Length Required"},
    {412, "Precondition Failed"},
    {413, "Payload Too Large"},
    {414, "URI Too Long"},
    {415, "Unsupported Media Type"},
    {422, "Unprocessable Entity"},
    {423, "Locked"},
    {428, "Precondition Required"},
    {429, "Too Many Requests"},
    {431, "Request Header Fields Too Large"},
    {500, "Internal Server Error"},
    {501, "Not Implemented"},
    {502, "Bad Gateway"},
    {503, "Service Unavailable"},
    {504, "Gateway Timeout"},
    {505, "HTTP Version Not Supported"},
}};

}  // namespace

std::string reasonPhrase(int status) {
  const auto it =
      std::lower_bound(kPhrases.begin(), kPhrases.end(), status,
                       [](const auto& entry, int value) { return entry.first < value; });
  if (it != kPhrases.end() && it->first == status) return it->second;
  if (status >= 500) return "Server Error";
  if (status >= 400) return "Client Error";
  if (status >= 300) return "Redirection";
  return "Success";
}

}  // namespace rapport::host
