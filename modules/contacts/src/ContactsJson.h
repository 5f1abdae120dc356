// A contact as the API shows it: the one place its shape is defined, used by
// GET, the lists and the data of every crm.contact.* event.
#pragma once

#include "rapport/db.h"
#include "rapport/json.h"

namespace contacts {

// {id, name, email, phone, job_title, company_id, owner_id, tags, notes,
//  created_at, updated_at} from a row read by store::find or store::list.
rapport::Json contactJson(const rapport::Row& row);

}  // namespace contacts
