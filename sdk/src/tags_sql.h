// The SDK's own use of the tag rows (tags.cpp), beside rapport/tags.h's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rapport/db.h"
#include "rapport/tags.h"

namespace rapport::detail {

// Inserts the tag rows of a record that has none yet (one created in this
// transaction): replaceTagRows without its DELETE, a round trip less per
// create on PostgreSQL.
void insertTagRows(Tx& tx, const TagTable& tagTable, std::string_view recordId,
                   const std::vector<std::string>& tags);

}  // namespace rapport::detail
