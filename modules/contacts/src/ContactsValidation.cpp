// Field rules of a contact (docs/modules/contacts.md lists them).
#include "ContactsValidation.h"

namespace contacts {
namespace {

const char* const kCompaniesDisabled =
    "The company_id field cannot be used: the companies module is not enabled.";

// An optional text field of at most `max` characters; "" reads as null.
rapport::Field<std::string> optionalText(rapport::Validator& v, const std::string& field,
                                         std::size_t max) {
  rapport::Field<std::string> out = v.string(field, {.required = false, .min = 0, .max = max});
  if (out.value && out.value->empty()) out.value.reset();
  return out;
}

// A query parameter, trimmed; nullopt when absent or blank.
std::optional<std::string> queryText(const rapport::Request& request, const char* name) {
  const auto text = request.queryParam(name);
  if (!text || rapport::trim(*text).empty()) return std::nullopt;
  return rapport::trim(*text);
}

}  // namespace

ContactInput validateContact(const rapport::Json& body, Mode mode, bool companiesEnabled) {
  rapport::Validator v(body);
  ContactInput in;
  // PATCH may leave the name out, but never clear it.
  const bool nameRequired = mode == Mode::Create || v.present("name");
  in.name = v.string("name", {.required = nameRequired, .min = 0, .max = 255});
  in.email = v.email("email");
  in.phone = optionalText(v, "phone", 50);
  in.jobTitle = optionalText(v, "job_title", 255);
  in.companyId = v.id("company_id");
  in.ownerId = v.id("owner_id");
  in.tags = v.tags("tags");
  in.notes = optionalText(v, "notes", 10000);
  if (in.companyId.value && !companiesEnabled) v.fail("company_id", kCompaniesDisabled);
  v.check();
  return in;
}

ContactFilter validateFilter(const rapport::Request& request, bool companiesEnabled) {
  ContactFilter filter{.search = queryText(request, "search"),
                       .tag = queryText(request, "tag"),
                       .companyId = queryText(request, "company_id"),
                       .ownerId = queryText(request, "owner_id")};
  rapport::FieldErrors errors;
  if (filter.search && rapport::utf8Length(*filter.search) > 255) {
    errors["search"].push_back("The search may not be greater than 255 characters.");
  }
  if (filter.companyId && !companiesEnabled) errors["company_id"].push_back(kCompaniesDisabled);
  if (!errors.empty()) throw rapport::Error::validation(std::move(errors));
  return filter;
}

}  // namespace contacts
