// Entity tags (RFC 9110 §8.8.3) of records, and the If-Match and
// If-None-Match lists clients send back.
//
// A record's tag is strong: "r" and the first 32 hex digits of the SHA-256
// of its data as the GET answers it (compact JSON). Byte-equal data, equal
// tag; any change of a field, an augment included, a new tag.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rapport/json.h"

namespace rapport::host {

// "\"r<32 hex>\"", quotes included, as the ETag header carries it.
std::string entityTagOf(const rapport::Json& data);

// A parsed If-Match or If-None-Match value: "*", or a list of tags.
struct EntityTagList {
  bool any = false;  // "*"
  struct Tag {
    std::string opaque;  // with its quotes
    bool weak = false;   // W/"..."
  };
  std::vector<Tag> tags;
  // False when the value is not a valid list (a 400 for the client).
  bool valid = true;
};

EntityTagList parseEntityTagList(std::string_view header);

// If-Match: strong comparison (a weak tag never matches).
bool matchesStrongly(const EntityTagList& list, const std::string& tag);
// If-None-Match: weak comparison (W/ ignored).
bool matchesWeakly(const EntityTagList& list, const std::string& tag);

}  // namespace rapport::host
