// Keyset cursors of the record query engine (record_query.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rapport/db.h"
#include "rapport/pagination.h"
#include "rapport/secrets.h"
#include "rapport/where.h"

namespace rapport::query {

// Where a page ended: the last row's sort values and its id.
struct CursorKey {
  std::vector<Value> values;
  std::string id;
};

// A digest of everything that makes a list the list it is: the record type,
// the WHERE clause with its values (the tenant first) and the order. A
// cursor is valid only for the list with the same signature.
std::string listSignature(const std::string& recordType, const WhereClause& where,
                          const Sort& sort);

// The cursor text (URL-safe) of `key` for the list `signature`.
std::string sealCursor(const SecretBox& box, const std::string& signature, const CursorKey& key);

// The key a cursor holds; throws Error 422 on "cursor" when it is malformed,
// altered, sealed by another server key, or made for another list.
CursorKey openCursor(const SecretBox& box, const std::string& signature, std::string_view text,
                     std::size_t keyCount);

}  // namespace rapport::query
