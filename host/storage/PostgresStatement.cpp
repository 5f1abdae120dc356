#include "storage/PostgresStatement.h"

#include <Poco/Data/Binding.h>

#include <type_traits>
#include <variant>

#include "storage/SqlScanner.h"

namespace rapport::host {
namespace {

const Poco::Data::NullData kNull = Poco::NULL_GENERIC;

}  // namespace

struct PostgresStatement::Slot {
  Poco::Int64 integer = 0;
  double real = 0;
  bool flag = false;
  std::string text;
};

// Statement::metaColumn is protected; the collector needs it.
class PostgresStatement::PocoStatement : public Poco::Data::Statement {
 public:
  explicit PocoStatement(Poco::Data::Session& session) : Statement(session) {}
  const Poco::Data::MetaColumn& column(std::size_t pos) const { return metaColumn(pos); }
};

PostgresStatement::PostgresStatement(Poco::Data::Session& session, std::string sql,
                                     std::string_view signature)
    : sql_(std::move(sql)),
      slots_(std::make_unique<Slot[]>(signature.size())),
      statement_(std::make_unique<PocoStatement>(session)),
      isDataChange_(sql::changesData(sql_)) {
  *statement_ << sql_;
  bind(signature);
  PocoStatement* statement = statement_.get();
  collector_ =
      new PostgresResultCollector([statement](std::size_t pos) -> const Poco::Data::MetaColumn& {
        return statement->column(pos);
      });
  statement_->addExtract(collector_);
}

PostgresStatement::~PostgresStatement() = default;

void PostgresStatement::bind(std::string_view signature) {
  using Poco::Data::Keywords::use;
  for (std::size_t i = 0; i < signature.size(); ++i) {
    Slot& slot = slots_[i];
    switch (signature[i]) {
      case 'N':
        statement_->addBind(use(kNull));
        break;
      case 'B':
        statement_->addBind(use(slot.flag));
        break;
      case 'I':
        statement_->addBind(use(slot.integer));
        break;
      case 'D':
        statement_->addBind(use(slot.real));
        break;
      default:
        statement_->addBind(use(slot.text));
        break;
    }
  }
}

void PostgresStatement::fill(const Params& params) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    Slot& slot = slots_[i];
    std::visit(
        [&slot](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, bool>) {
            slot.flag = value;
          } else if constexpr (std::is_same_v<T, std::int64_t>) {
            slot.integer = value;
          } else if constexpr (std::is_same_v<T, double>) {
            slot.real = value;
          } else if constexpr (std::is_same_v<T, std::string>) {
            slot.text = value;
          }
        },
        params[i].variant());
  }
}

Result PostgresStatement::execute(const Params& params) {
  fill(params);
  const std::size_t count = statement_->execute();
  succeeded_ = true;
  Result result;
  result.rows = collector_->takeRows();
  result.affected = affected(count, result.rows);
  return result;
}

// Through Poco: the command's row count when it returned no rows, the number
// of rows returned by INSERT/UPDATE/DELETE ... RETURNING, and 0 for a SELECT.
std::int64_t PostgresStatement::affected(std::size_t executeCount,
                                         const std::vector<Row>& rows) const {
  if (rows.empty()) return static_cast<std::int64_t>(executeCount);
  return isDataChange_ ? static_cast<std::int64_t>(rows.size()) : 0;
}

bool PostgresStatement::abandonIfUnsafe() {
  if (!succeeded_) return false;
  // A copy shares the implementation and is never destroyed, so Poco never
  // frees the stale result.
  static_cast<void>(new Poco::Data::Statement(*statement_));
  return true;
}

}  // namespace rapport::host
