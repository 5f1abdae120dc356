#include "http/IsoInstant.h"

#include "rapport/time.h"

namespace rapport::host {
namespace {

std::optional<int> digits(std::string_view text) {
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

bool isLeapYear(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int daysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && isLeapYear(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t daysFromCivil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<std::int64_t>(era) * 146097 + doe - 719468;
}

std::optional<std::int64_t> parseDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  const auto y = digits(text.substr(0, 4));
  const auto m = digits(text.substr(5, 2));
  const auto d = digits(text.substr(8, 2));
  if (!y || !m || !d || *m < 1 || *m > 12 || *d < 1 || *d > daysInMonth(*y, *m)) {
    return std::nullopt;
  }
  return daysFromCivil(*y, *m, *d) * 86'400'000'000LL;
}

}  // namespace

std::optional<std::int64_t> parseIsoInstant(std::string_view text) {
  if (text.size() == 10) return parseDate(text);
  // The date part is checked here too: the SDK parser's calendar rules are its own.
  if (text.size() < 11 || !parseDate(text.substr(0, 10))) return std::nullopt;
  return rapport::parseIsoTimestamp(text);
}

}  // namespace rapport::host
