// The request rules every record module repeats: list filters and the search
// term from the query string, an optional text field of a body, and the 409
// of a duplicate.
//
//   rapport::FieldErrors errors;
//   filter.search = rapport::searchParam(request, errors);
//   filter.ownerId = rapport::filterParam(request, "owner_id");
//
// Lifetime and threading: free functions without state; they use the
// Request, Validator and FieldErrors on the caller's thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "rapport/error.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/search.h"
#include "rapport/validation.h"

namespace rapport {

// A list filter from the query string: the parameter, trimmed; nullopt when
// it is absent or blank (a blank filter is ignored).
RAPPORT_SDK_API std::optional<std::string> filterParam(const Request& request,
                                                       std::string_view name);

// The ?search= term, read as filterParam. A term longer than kMaxSearchLength
// (search.h) records "The search may not be greater than 255 characters." on
// "search" in `errors`; the caller throws Error::validation with its other
// filter errors.
RAPPORT_SDK_API std::optional<std::string> searchParam(const Request& request, FieldErrors& errors);

// An optional text field of a body: Validator::string, not required, of at
// most `max` characters, where a value blank after trimming reads as null (so
// it clears the field, and an empty string is never stored).
RAPPORT_SDK_API Field<std::string> optionalText(Validator& validator, const std::string& field,
                                                std::size_t max);

// Runs `write`; a DbError that is a unique violation becomes
// Error::conflict(message) (409, "A contact with this email already exists.").
// Anything else passes through unchanged.
RAPPORT_SDK_API void conflictOnDuplicate(const std::string& message,
                                         const std::function<void()>& write);

}  // namespace rapport
