// What a contact request may carry: bodies of POST and PATCH, and the list's
// query filters. Every rule that needs no database lives here; rules that do
// (the linked company and owner exist) live in ContactsRoutes.
#pragma once

#include <string>
#include <vector>

#include "ContactsStore.h"
#include "rapport/http.h"
#include "rapport/validation.h"

namespace contacts {

// A validated body. Each Field tells apart absent (PATCH leaves it alone),
// null (clears it; a blank optional string reads as null too) and a value.
struct ContactInput {
  rapport::Field<std::string> name;
  rapport::Field<std::string> email;
  rapport::Field<std::string> phone;
  rapport::Field<std::string> jobTitle;
  rapport::Field<std::string> companyId;  // the CRM company (API field company_id)
  rapport::Field<std::string> ownerId;
  rapport::Field<std::vector<std::string>> tags;
  rapport::Field<std::string> notes;
};

enum class Mode { Create, Update };

// Reads a POST (Create: name required) or PATCH (Update: name may be absent,
// never null or blank) body. Throws one 422 naming every field at fault.
// `companiesEnabled` false refuses a company_id.
ContactInput validateContact(const rapport::Json& body, Mode mode, bool companiesEnabled);

// Reads the filters of GET /crm/contacts (search, tag, company_id, owner_id);
// blank values are ignored. Throws a 422 on a search longer than 255
// characters, or a company_id filter without the companies module.
ContactFilter validateFilter(const rapport::Request& request, bool companiesEnabled);

}  // namespace contacts
