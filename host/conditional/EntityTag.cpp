#include "conditional/EntityTag.h"

#include "rapport/ids.h"

namespace rapport::host {

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t';
}

// etagc = %x21 / %x23-7E / obs-text
bool isTagChar(unsigned char c) {
  return c == 0x21 || (c >= 0x23 && c != 0x7F);
}

void skipSpaces(std::string_view text, std::size_t& at) {
  while (at < text.size() && isSpace(text[at])) ++at;
}

// One entity-tag at `at`; false when malformed.
bool readTag(std::string_view text, std::size_t& at, EntityTagList::Tag& tag) {
  if (text.substr(at, 2) == "W/") {
    tag.weak = true;
    at += 2;
  }
  if (at >= text.size() || text[at] != '"') return false;
  const std::size_t start = at++;
  while (at < text.size() && text[at] != '"') {
    if (!isTagChar(static_cast<unsigned char>(text[at]))) return false;
    ++at;
  }
  if (at >= text.size()) return false;
  ++at;  // the closing quote
  tag.opaque = std::string(text.substr(start, at - start));
  return true;
}

}  // namespace

std::string entityTagOf(const rapport::Json& data) {
  return "\"r" + rapport::sha256Hex(data.dump()).substr(0, 32) + "\"";
}

EntityTagList parseEntityTagList(std::string_view header) {
  EntityTagList list;
  const std::size_t first = header.find_first_not_of(" \t");
  const std::size_t last = header.find_last_not_of(" \t");
  if (first != header.npos && header.substr(first, last - first + 1) == "*") {
    list.any = true;
    return list;
  }
  std::size_t at = first == header.npos ? header.size() : first;
  while (at < header.size()) {
    if (header[at] == ',') {  // empty list elements are allowed (RFC 9110 §5.6.1)
      ++at;
      skipSpaces(header, at);
      continue;
    }
    EntityTagList::Tag tag;
    if (!readTag(header, at, tag)) {
      list.valid = false;
      return list;
    }
    list.tags.push_back(std::move(tag));
    skipSpaces(header, at);
    if (at < header.size() && header[at] != ',') {
      list.valid = false;
      return list;
    }
  }
  if (list.tags.empty()) list.valid = false;
  return list;
}

bool matchesStrongly(const EntityTagList& list, const std::string& tag) {
  if (list.any) return true;
  for (const auto& t : list.tags) {
    if (!t.weak && t.opaque == tag) return true;
  }
  return false;
}

bool matchesWeakly(const EntityTagList& list, const std::string& tag) {
  if (list.any) return true;
  for (const auto& t : list.tags) {
    if (t.opaque == tag) return true;
  }
  return false;
}

}  // namespace rapport::host
