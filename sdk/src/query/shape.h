// The records of a list as the client asked for them (record_query.h):
// `fields` and `include` checked, the references embedded, the fields kept.
#pragma once

#include <string>

#include "compiled.h"
#include "rapport/records.h"

namespace rapport::query {

// `fields` and `include` checked against the declaration before any work
// (Error 422 on "fields" or "include").
void checkOutputs(const Compiled& self, const RecordDirectory& records, const ListRequest& list);

// Each record gets the referenced record `name` as its owner's GET shows it
// (with the augments other modules add), or null.
void embed(const Compiled& self, const RecordDirectory& records, Queryable& db,
           const std::string& tenant, const std::string& name, Json::Array& out);

// Only `fields`, id and the included references.
void project(const ListRequest& list, Json::Array& out);

}  // namespace rapport::query
