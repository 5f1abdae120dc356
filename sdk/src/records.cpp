#include "rapport/records.h"

namespace rapport {

std::string_view lockClause(Dialect dialect, RecordLock lock) {
  // KEY SHARE rather than SHARE: a referenced record can still be updated
  // (a company renamed while a contact links to it); only its deletion, or a
  // change of its key, waits.
  if (dialect == Dialect::PostgreSQL && lock == RecordLock::Share) return " FOR KEY SHARE";
  return "";
}

}  // namespace rapport
