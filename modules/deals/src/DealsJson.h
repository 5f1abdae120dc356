// A deal as the API shows it: the one place its shape is defined, used by
// GET, the lists, the record directory's fetch and the data of every
// crm.deal.* event.
#pragma once

#include "rapport/db.h"
#include "rapport/json.h"

namespace deals {

// {id, title, pipeline_id, stage_id, status, value, currency, contact_id,
//  company_id, owner_id, expected_close_date, probability, tags, notes, won_at,
//  lost_at, lost_reason, created_at, updated_at} from a row read by
// store::find or store::list.
rapport::Json dealJson(const rapport::Row& row);

}  // namespace deals
