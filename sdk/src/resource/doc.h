// The API document's description of a rapport::Resource (resource.h): its
// record schema, its routes, its actions and its sub-lists. Internal to the
// SDK library.
#pragma once

#include <map>
#include <set>
#include <string>

#include "rapport/module.h"
#include "rapport/record_query.h"
#include "rapport/resource.h"

namespace rapport::detail {

// Call after the routes are registered; `unavailable` as Resource::validate.
void describeResource(const ResourceSpec& spec, const RecordQuery& query,
                      const std::set<std::string>& unavailable, Registry& registry);

}  // namespace rapport::detail
