// Microsecond timestamps and their ISO-8601 text. Calendar arithmetic uses
// Howard Hinnant's days/civil algorithms: exact for any int64 day count,
// thread-safe and much faster than gmtime_r/timegm.
#include "rapport/time.h"

#include <chrono>

#include "rapport/validation.h"

namespace rapport {
namespace {

constexpr std::int64_t kMicrosPerSecond = 1'000'000;
constexpr std::int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

struct CivilDate {
  std::int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

// Floor division: negative instants belong to the day before the epoch.
std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0 && ((a < 0) != (b < 0))) ? 1 : 0);
}

CivilDate civilFromDays(std::int64_t days) {
  days += 719468;
  const std::int64_t era = floorDiv(days, 146097);
  const std::int64_t dayOfEra = days - era * 146097;
  const std::int64_t yearOfEra =
      (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
  const std::int64_t dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
  const std::int64_t mp = (5 * dayOfYear + 2) / 153;
  const int day = static_cast<int>(dayOfYear - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

std::int64_t daysFromCivil(std::int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const std::int64_t era = floorDiv(year, 400);
  const std::int64_t yearOfEra = year - era * 400;
  const std::int64_t dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const std::int64_t dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

// Zero-padded decimal of at least `width` digits (years past 9999 just grow).
void appendPadded(std::string& out, std::int64_t value, int width) {
  if (value < 0) {
    out.push_back('-');
    value = -value;
  }
  char digits[20];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0);
  for (int i = count; i < width; ++i) out.push_back('0');
  while (count > 0) out.push_back(digits[--count]);
}

void appendDate(std::string& out, const CivilDate& date) {
  appendPadded(out, date.year, 4);
  out.push_back('-');
  appendPadded(out, date.month, 2);
  out.push_back('-');
  appendPadded(out, date.day, 2);
}

// A fixed-width run of digits at `pos`, or -1.
int digitsAt(std::string_view text, std::size_t pos, std::size_t count) {
  if (pos + count > text.size()) return -1;
  int value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// ".f" with 1 to 9 digits at text[pos], as microseconds (digits beyond the
// sixth are truncated). Advances pos; -1 when malformed.
std::int64_t parseFraction(std::string_view text, std::size_t& pos) {
  if (pos >= text.size() || text[pos] != '.') return 0;
  ++pos;
  std::int64_t micros = 0;
  std::size_t count = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    if (count < 6) micros = micros * 10 + (text[pos] - '0');
    ++count;
    ++pos;
  }
  if (count == 0 || count > 9) return -1;
  for (std::size_t i = count; i < 6; ++i) micros *= 10;
  return micros;
}

// "Z" or "+HH:MM"/"-HH:MM" filling the rest of the text, in seconds east of
// UTC; nullopt when malformed.
std::optional<std::int64_t> parseOffset(std::string_view zone) {
  if (zone == "Z") return 0;
  if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':') {
    return std::nullopt;
  }
  const int hours = digitsAt(zone, 1, 2), minutes = digitsAt(zone, 4, 2);
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59) return std::nullopt;
  const std::int64_t seconds = hours * 3600 + minutes * 60;
  return zone[0] == '+' ? seconds : -seconds;
}

}  // namespace

std::int64_t nowMicros() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

std::string isoTimestamp(std::int64_t micros) {
  const std::int64_t days = floorDiv(micros, kMicrosPerDay);
  const std::int64_t inDay = micros - days * kMicrosPerDay;
  const std::int64_t seconds = inDay / kMicrosPerSecond;
  std::string out;
  out.reserve(27);
  appendDate(out, civilFromDays(days));
  out.push_back('T');
  appendPadded(out, seconds / 3600, 2);
  out.push_back(':');
  appendPadded(out, seconds / 60 % 60, 2);
  out.push_back(':');
  appendPadded(out, seconds % 60, 2);
  out.push_back('.');
  appendPadded(out, inDay % kMicrosPerSecond, 6);
  out.push_back('Z');
  return out;
}

// YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM), upper-case T and Z only.
std::optional<std::int64_t> parseIsoTimestamp(std::string_view text) {
  if (text.size() < 20 || !isValidDate(text.substr(0, 10)) || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  const int hour = digitsAt(text, 11, 2), minute = digitsAt(text, 14, 2),
            second = digitsAt(text, 17, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return std::nullopt;
  }
  std::size_t pos = 19;
  const std::int64_t fraction = parseFraction(text, pos);
  if (fraction < 0) return std::nullopt;
  const auto offset = parseOffset(text.substr(pos));
  if (!offset) return std::nullopt;
  const std::int64_t days =
      daysFromCivil(digitsAt(text, 0, 4), digitsAt(text, 5, 2), digitsAt(text, 8, 2));
  const std::int64_t seconds = days * 86'400 + hour * 3600 + minute * 60 + second - *offset;
  return seconds * kMicrosPerSecond + fraction;
}

std::string isoDate(std::int64_t micros) {
  std::string out;
  appendDate(out, civilFromDays(floorDiv(micros, kMicrosPerDay)));
  return out;
}

}  // namespace rapport
