// Splits migration scripts into single statements: PostgreSQL refuses
// several statements in one prepared string.
#include <string>
#include <vector>

#include "storage/SqlDatabase.h"
#include "storage/SqlScanner.h"

namespace rapport::host {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

std::string upper(std::string_view word) {
  std::string out(word);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

std::string trimmed(const std::string& text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end && isSpace(text[begin])) ++begin;
  while (end > begin && isSpace(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

// Collects one statement and remembers its keywords: an SQLite
// "CREATE TRIGGER ... BEGIN ...; ...; END;" holds semicolons in its body and
// ends only at a ";" right after END (the rule sqlite3_complete() uses). A
// PostgreSQL "CREATE TRIGGER ... EXECUTE FUNCTION f();" has no BEGIN and ends
// at its first ";".
class StatementBuilder {
 public:
  void appendOpaque(std::string_view chunk, bool isComment) {
    text_.append(chunk);
    if (!isComment) {
      hasCode_ = true;
      lastWord_.clear();
    }
  }
  void appendWord(std::string_view word) {
    text_.append(word);
    hasCode_ = true;
    lastWord_ = upper(word);
    if (leadingWords_.size() < 3) leadingWords_.push_back(lastWord_);
    if (lastWord_ == "BEGIN" && isTrigger()) hasBody_ = true;
  }
  void appendChar(char c) {
    text_ += c;
    if (!isSpace(c)) {
      hasCode_ = true;
      lastWord_.clear();
    }
  }
  // Whether a ";" here ends the statement.
  bool endsAt() const { return !hasBody_ || lastWord_ == "END"; }
  void flushInto(std::vector<std::string>& out) {
    if (hasCode_) out.push_back(trimmed(text_));
    *this = StatementBuilder();
  }

 private:
  bool isTrigger() const {
    if (leadingWords_.size() < 2 || leadingWords_[0] != "CREATE") return false;
    if (leadingWords_[1] == "TRIGGER") return true;
    return leadingWords_.size() == 3 && leadingWords_[2] == "TRIGGER" &&
           (leadingWords_[1] == "TEMP" || leadingWords_[1] == "TEMPORARY");
  }

  std::string text_;
  std::string lastWord_;
  std::vector<std::string> leadingWords_;
  bool hasCode_ = false;
  bool hasBody_ = false;  // a trigger whose BEGIN ... END body has started
};

}  // namespace

std::vector<std::string> splitSqlStatements(const std::string& script) {
  const std::string_view sql(script);
  std::vector<std::string> statements;
  StatementBuilder current;
  std::size_t pos = 0;
  while (pos < sql.size()) {
    if (const std::size_t opaque = sql::opaqueLength(sql, pos); opaque > 0) {
      current.appendOpaque(sql.substr(pos, opaque), sql::startsComment(sql, pos));
      pos += opaque;
    } else if (sql::isWordChar(sql[pos])) {
      std::size_t end = pos;
      while (end < sql.size() && sql::isWordChar(sql[end])) ++end;
      current.appendWord(sql.substr(pos, end - pos));
      pos = end;
    } else if (sql[pos] == ';' && current.endsAt()) {
      current.flushInto(statements);
      ++pos;
    } else {
      current.appendChar(sql[pos++]);
    }
  }
  current.flushInto(statements);
  return statements;
}

}  // namespace rapport::host
