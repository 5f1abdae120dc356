// The API document's description of a rapport::Resource (resource.h): its
// record schema, named after its noun, and its five routes. Internal to the
// SDK library.
#pragma once

#include <map>
#include <string>

#include "rapport/module.h"
#include "rapport/resource.h"

namespace rapport::detail {

// Call after the five routes are registered.
void describeResource(const ResourceSpec& spec, const std::map<std::string, std::string>& sorts,
                      Registry& registry);

}  // namespace rapport::detail
