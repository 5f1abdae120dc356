// An activity as the API shows it: the one place its shape is defined, used by
// GET, the lists, the sub-lists, the record directory's fetch and the data of
// every crm.activity.* event but deleted.
#pragma once

#include "rapport/db.h"
#include "rapport/json.h"

namespace activities {

// {id, type, title, description, status, scheduled_at, duration_minutes,
//  owner_id, related_to ({type, id} or null), completed_at, created_at,
//  updated_at} from a row read by store::find or store::list.
rapport::Json activityJson(const rapport::Row& row);

}  // namespace activities
