// The request rules record modules repeat (rapport/request_rules.h).
#include "rapport/request_rules.h"

#include <string>

namespace rapport {

std::optional<std::string> filterParam(const Request& request, std::string_view name) {
  const auto text = request.queryParam(name);
  if (!text) return std::nullopt;
  std::string trimmed = trim(*text);
  if (trimmed.empty()) return std::nullopt;
  return trimmed;
}

std::optional<std::string> searchParam(const Request& request, FieldErrors& errors) {
  auto term = filterParam(request, "search");
  if (term && utf8Length(*term) > kMaxSearchLength) {
    errors["search"].push_back("The search may not be greater than " +
                               std::to_string(kMaxSearchLength) + " characters.");
  }
  return term;
}

Field<std::string> optionalText(Validator& validator, const std::string& field, std::size_t max) {
  Field<std::string> out = validator.string(field, {.required = false, .min = 0, .max = max});
  if (out.value && out.value->empty()) out.value.reset();
  return out;
}

void conflictOnDuplicate(const std::string& message, const std::function<void()>& write) {
  try {
    write();
  } catch (const DbError& error) {
    if (error.isUniqueViolation()) throw Error::conflict(message);
    throw;
  }
}

}  // namespace rapport
