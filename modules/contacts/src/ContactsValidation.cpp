// Field rules of a contact (docs/modules/contacts.md lists them).
#include "ContactsValidation.h"

#include "rapport/request_rules.h"

namespace contacts {
namespace {

const char* const kCompaniesDisabled =
    "The company_id field cannot be used: the companies module is not enabled.";

}  // namespace

ContactInput validateContact(const rapport::Json& body, Mode mode, bool companiesEnabled) {
  rapport::Validator v(body);
  ContactInput in;
  // PATCH may leave the name out, but never clear it.
  const bool nameRequired = mode == Mode::Create || v.present("name");
  in.name = v.string("name", {.required = nameRequired, .min = 0, .max = 255});
  in.email = v.email("email");
  in.phone = rapport::optionalText(v, "phone", 50);
  in.jobTitle = rapport::optionalText(v, "job_title", 255);
  in.companyId = v.id("company_id");
  in.ownerId = v.id("owner_id");
  in.tags = v.tags("tags");
  in.notes = rapport::optionalText(v, "notes", 10000);
  if (in.companyId.value && !companiesEnabled) v.fail("company_id", kCompaniesDisabled);
  v.check();
  return in;
}

ContactFilter validateFilter(const rapport::Request& request, bool companiesEnabled) {
  rapport::FieldErrors errors;
  ContactFilter filter{.search = rapport::searchParam(request, errors),
                       .tag = rapport::filterParam(request, "tag"),
                       .companyId = rapport::filterParam(request, "company_id"),
                       .ownerId = rapport::filterParam(request, "owner_id")};
  if (filter.companyId && !companiesEnabled) errors["company_id"].push_back(kCompaniesDisabled);
  if (!errors.empty()) throw rapport::Error::validation(std::move(errors));
  return filter;
}

}  // namespace contacts
