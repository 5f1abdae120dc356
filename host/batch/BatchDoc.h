// The API document's description of POST <collection>/batch (BatchRoute.h),
// made from what the module said about its own create and update routes: the
// items' `data` is the body of either, each result's `data` what they answer.
// A route the module left undescribed contributes a free-form object.
#pragma once

#include <string>

#include "http/Router.h"
#include "rapport/api_doc.h"

namespace rapport::host {

// `post` is POST <collection>, `patch` PATCH <collection>/{id}; `upsertBy`
// the collection's upsert key, empty when it has none.
rapport::RouteDoc batchDoc(const Route& post, const Route& patch, const std::string& upsertBy);

}  // namespace rapport::host
