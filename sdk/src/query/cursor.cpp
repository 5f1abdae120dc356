// Keyset cursors (decisions §13): the last row's sort values and id, sealed
// by the host's SecretBox for one list (its tenant, record type, filter and
// sort), in URL-safe text.
#include "cursor.h"

#include <stdexcept>

#include "rapport/error.h"
#include "rapport/ids.h"

namespace rapport::query {
namespace {

// What a SecretBox seals: "rk1:" + standard base64. The cursor travels in a
// query string, so it is written base64url without padding.
constexpr std::string_view kSealPrefix = "rk1:";
constexpr std::string_view kContext = "rapport.cursor";

std::string toUrlSafe(std::string sealed) {
  std::string out = sealed.substr(kSealPrefix.size());
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

std::string fromUrlSafe(std::string_view text) {
  std::string out(kSealPrefix);
  for (char c : text) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!plain && c != '-' && c != '_') throw std::runtime_error("not base64url");
    out.push_back(c == '-' ? '+' : c == '_' ? '/' : c);
  }
  while ((out.size() - kSealPrefix.size()) % 4 != 0) out.push_back('=');
  return out;
}

Value fromJson(const Json& json) {
  switch (json.type()) {
    case Json::Type::Int:
      return Value(static_cast<long long>(json.asInt()));
    case Json::Type::Double:
      return Value(json.asDouble());
    case Json::Type::Bool:
      return Value(json.asBool());
    case Json::Type::String:
      return Value(json.asString());
    default:
      throw std::runtime_error("not a key value");
  }
}

[[noreturn]] void refuse() {
  throw Error::invalidField("cursor", "The cursor is not valid for this list.");
}

}  // namespace

std::string listSignature(const std::string& recordType, const WhereClause& where,
                          const Sort& sort) {
  std::string text = recordType + "\n" + where.sql() + "\n" + orderByClause(sort) + "\n";
  for (const Value& value : where.params()) {
    value.toJson().dumpTo(text);
    text += ",";
  }
  return sha256Hex(text).substr(0, 32);
}

std::string sealCursor(const SecretBox& box, const std::string& signature, const CursorKey& key) {
  Json values = Json::array();
  for (const Value& value : key.values) values.push(value.toJson());
  const Json payload = Json::object({{"s", signature}, {"k", std::move(values)}, {"i", key.id}});
  return toUrlSafe(box.seal(payload.dump(), kContext));
}

CursorKey openCursor(const SecretBox& box, const std::string& signature, std::string_view text,
                     std::size_t keyCount) {
  Json payload;
  try {
    payload = Json::parse(box.open(fromUrlSafe(text), kContext));
  } catch (const std::exception&) {
    refuse();  // malformed, altered, or sealed by another server's key
  }
  const Json* s = payload.find("s");
  const Json* k = payload.find("k");
  const Json* i = payload.find("i");
  if (!s || !s->isString() || !constantTimeEquals(s->asString(), signature) || !k ||
      !k->isArray() || k->size() != keyCount || !i || !i->isString()) {
    refuse();  // another company's, record type's, filter's or sort's
  }
  CursorKey key{.values = {}, .id = i->asString()};
  try {
    for (const Json& value : k->asArray()) key.values.push_back(fromJson(value));
  } catch (const std::exception&) {
    refuse();
  }
  return key;
}

}  // namespace rapport::query
