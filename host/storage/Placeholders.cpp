// "?" placeholders, as modules write them, become PostgreSQL's "$1".."$n".
#include <string>

#include "storage/SqlDatabase.h"
#include "storage/SqlScanner.h"

namespace rapport::host {

std::string rewritePlaceholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 1;
  std::size_t pos = 0;
  while (pos < sql.size()) {
    if (const std::size_t opaque = sql::opaqueLength(sql, pos); opaque > 0) {
      out.append(sql.substr(pos, opaque));
      pos += opaque;
    } else if (sql[pos] == '?') {
      out += '$';
      out += std::to_string(next++);
      ++pos;
    } else {
      out += sql[pos++];
    }
  }
  return out;
}

}  // namespace rapport::host
