// Pagination and sorting from the query string.
#include "rapport/pagination.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "rapport/error.h"

namespace rapport {
namespace {

constexpr std::int64_t kMaxPerPage = 100;
// Above this, (page - 1) * per_page could overflow int64; no table is that long.
constexpr std::int64_t kMaxPage = std::numeric_limits<std::int64_t>::max() / kMaxPerPage;

// Digits only: no sign, no spaces, no fraction. Huge values fail instead of wrapping.
std::optional<std::int64_t> parseDigits(const std::string& text) {
  if (text.empty() ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::int64_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc()) return std::nullopt;
  return value;
}

// The query value, parsed and within [min, max]; `fallback` when absent.
std::optional<std::int64_t> readBounded(const Request& request, const char* name,
                                        std::int64_t fallback, std::int64_t min, std::int64_t max) {
  const auto text = request.queryParam(name);
  if (!text) return fallback;
  const auto value = parseDigits(*text);
  if (!value || *value < min || *value > max) return std::nullopt;
  return value;
}

}  // namespace

PageRequest parsePage(const Request& request) {
  PageRequest page;
  FieldErrors errors;
  if (auto value = readBounded(request, "page", 1, 1, kMaxPage)) {
    page.page = *value;
  } else {
    errors["page"].push_back("The page must be an integer of at least 1.");
  }
  if (auto value = readBounded(request, "per_page", 20, 1, kMaxPerPage)) {
    page.perPage = *value;
  } else {
    errors["per_page"].push_back("The per_page must be an integer between 1 and 100.");
  }
  if (!errors.empty()) throw Error::validation(std::move(errors));
  return page;
}

Json pageMeta(const PageRequest& page, std::int64_t total) {
  const std::int64_t perPage = std::max<std::int64_t>(1, page.perPage);
  const std::int64_t pages = total / perPage + (total % perPage > 0 ? 1 : 0);
  return Json::object(
      {{"current_page", Json(static_cast<long long>(page.page))},
       {"per_page", Json(static_cast<long long>(page.perPage))},
       {"total", Json(static_cast<long long>(total))},
       {"last_page", Json(static_cast<long long>(std::max<std::int64_t>(1, pages)))}});
}

Sort parseSort(const Request& request, const std::map<std::string, std::string>& allowed,
               Sort fallback) {
  const auto text = request.queryParam("sort");
  if (!text) return fallback;
  const bool descending = !text->empty() && text->front() == '-';
  const auto it = allowed.find(descending ? text->substr(1) : *text);
  if (it == allowed.end()) throw Error::invalidField("sort", "The sort field is not supported.");
  return Sort{it->second, descending, {}};
}

std::string orderByClause(const Sort& sort) {
  const auto direction = [](bool descending) { return descending ? " DESC" : " ASC"; };
  std::string clause = "ORDER BY " + sort.column + direction(sort.descending);
  for (const SortKey& key : sort.then) clause += ", " + key.column + direction(key.descending);
  const std::string& last = sort.then.empty() ? sort.column : sort.then.back().column;
  const bool lastDescending = sort.then.empty() ? sort.descending : sort.then.back().descending;
  // Sorting by id already gives a total order; a second "id" would be noise.
  if (last != "id") clause += std::string(", id") + direction(lastDescending);
  return clause;
}

}  // namespace rapport
