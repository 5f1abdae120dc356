// The records of a list as the client asked for them (record_query.h):
// `fields` and `include` checked, the references embedded, the fields kept.
#pragma once

#include <functional>
#include <string>

#include "compiled.h"
#include "rapport/records.h"

namespace rapport::query {

// Throws (403) when the caller may not read records of the type: an API
// key without its read scope (record_query.cpp).
using Readable = std::function<void(const std::string& recordType)>;

// `fields` and `include` checked against the declaration before any work
// (Error 422 on "fields" or "include"; `readable` on each fixed include's type).
void checkOutputs(const Compiled& self, const RecordDirectory& records, const ListRequest& list,
                  const Readable& readable);

// Each record gets the referenced record `name` as its owner's GET shows it
// (with the augments other modules add), or null. `readable` is asked for
// each type it would embed, before any is fetched.
void embed(const Compiled& self, const RecordDirectory& records, Queryable& db,
           const std::string& tenant, const std::string& name, Json::Array& out,
           const Readable& readable);

// Only `fields`, id and the included references.
void project(const ListRequest& list, Json::Array& out);

}  // namespace rapport::query
