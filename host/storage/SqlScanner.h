// A minimal SQL lexer shared by the placeholder rewriter and the statement
// splitter: both must step over text where "?" and ";" mean nothing
// (string literals, quoted identifiers, comments, PostgreSQL $tag$ bodies).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rapport::host::sql {

// Length of the literal, quoted identifier, comment or dollar-quoted body
// that starts at `pos`, or 0 when `pos` starts ordinary SQL. An unterminated
// one runs to the end of the text.
std::size_t opaqueLength(std::string_view sql, std::size_t pos);

// True for the comment forms (their text is not code).
bool startsComment(std::string_view sql, std::size_t pos);

// The first keyword of a statement, upper-cased, after leading blanks,
// comments and parentheses ("INSERT", "SELECT", "WITH"...).
std::string firstKeyword(std::string_view sql);

// True when the statement changes rows (INSERT, UPDATE, DELETE, REPLACE,
// MERGE, with or without RETURNING).
bool changesData(std::string_view sql);

// Characters that may appear in an unquoted identifier or keyword.
bool isWordChar(char c);

}  // namespace rapport::host::sql
