// What clients may query on contacts (decisions §13): the record query
// engine's declaration of the contacts table.
#pragma once

#include "rapport/record_query.h"

namespace contacts {

const rapport::RecordQuery& contactsQuery();

}  // namespace contacts
