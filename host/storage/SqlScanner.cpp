#include "storage/SqlScanner.h"

namespace rapport::host::sql {
namespace {

bool isAsciiLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// 'it''s' and "a""b" double the quote; E'it\'s' (PostgreSQL) also escapes
// with a backslash.
std::size_t quotedLength(std::string_view sql, std::size_t pos, bool backslashEscapes) {
  const char quote = sql[pos];
  std::size_t i = pos + 1;
  while (i < sql.size()) {
    const char c = sql[i];
    if (backslashEscapes && c == '\\') {
      i += 2;
      continue;
    }
    if (c == quote) {
      if (i + 1 < sql.size() && sql[i + 1] == quote) {
        i += 2;
        continue;
      }
      return i + 1 - pos;
    }
    ++i;
  }
  return sql.size() - pos;
}

bool isEscapeString(std::string_view sql, std::size_t pos) {
  if (pos == 0 || (sql[pos - 1] != 'E' && sql[pos - 1] != 'e')) return false;
  return pos == 1 || !isWordChar(sql[pos - 2]);
}

std::size_t untilAfter(std::string_view sql, std::size_t from, std::string_view end,
                       std::size_t pos) {
  const auto found = sql.find(end, from);
  return found == std::string_view::npos ? sql.size() - pos : found + end.size() - pos;
}

// $$...$$ or $tag$...$tag$. "$1" is a positional parameter and "a$b" part of
// an identifier, neither opens a body.
std::size_t dollarQuotedLength(std::string_view sql, std::size_t pos) {
  if (pos > 0 && isWordChar(sql[pos - 1])) return 0;
  std::size_t i = pos + 1;
  if (i < sql.size() && (isAsciiLetter(sql[i]) || sql[i] == '_')) {
    while (i < sql.size() && isWordChar(sql[i])) ++i;
  }
  if (i >= sql.size() || sql[i] != '$') return 0;
  const std::string_view tag = sql.substr(pos, i + 1 - pos);
  return untilAfter(sql, i + 1, tag, pos);
}

}  // namespace

bool isWordChar(char c) {
  return isAsciiLetter(c) || isDigit(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

bool startsComment(std::string_view sql, std::size_t pos) {
  if (pos + 1 >= sql.size()) return false;
  return (sql[pos] == '-' && sql[pos + 1] == '-') || (sql[pos] == '/' && sql[pos + 1] == '*');
}

std::size_t opaqueLength(std::string_view sql, std::size_t pos) {
  switch (sql[pos]) {
    case '\'':
      return quotedLength(sql, pos, isEscapeString(sql, pos));
    case '"':
      return quotedLength(sql, pos, false);
    case '$':
      return dollarQuotedLength(sql, pos);
    case '-':
      return startsComment(sql, pos) ? untilAfter(sql, pos + 2, "\n", pos) : 0;
    case '/':
      return startsComment(sql, pos) ? untilAfter(sql, pos + 2, "*/", pos) : 0;
    default:
      return 0;
  }
}

std::string firstKeyword(std::string_view sql) {
  std::size_t pos = 0;
  while (pos < sql.size()) {
    const char c = sql[pos];
    if (startsComment(sql, pos)) {
      pos += opaqueLength(sql, pos);
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(') {
      ++pos;
    } else {
      break;
    }
  }
  std::string word;
  for (; pos < sql.size() && isWordChar(sql[pos]); ++pos) {
    const char c = sql[pos];
    word += (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return word;
}

bool changesData(std::string_view sql) {
  const std::string keyword = firstKeyword(sql);
  return keyword == "INSERT" || keyword == "UPDATE" || keyword == "DELETE" ||
         keyword == "REPLACE" || keyword == "MERGE";
}

}  // namespace rapport::host::sql
