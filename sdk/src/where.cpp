// The WHERE clause of a tenant's list (rapport/where.h), its state behind a
// pointer so its layout is not part of the SDK ABI.
#include "rapport/where.h"

#include <optional>
#include <utility>

#include "where_sql.h"

namespace rapport {

namespace detail {

std::string tenantEquals(Dialect dialect, bool hideIndex) {
  return hideIndex && dialect == Dialect::SQLite ? "+company_id = ?" : "company_id = ?";
}

std::string tenantFilterOnly(Dialect dialect) {
  return dialect == Dialect::SQLite ? "+company_id = ?" : "company_id || '' = ?";
}

std::string setMembers(const WhereClause::SetTable& set) {
  return "SELECT " + set.recordColumn + " FROM " + set.table + " WHERE company_id = ? AND " +
         set.key;
}

}  // namespace detail

struct WhereClause::State {
  Dialect dialect = Dialect::SQLite;
  std::string tenant;
  std::string conditions;  // " AND <condition>" for each condition
  Params params;
  bool narrowed = false;
  std::optional<SetTable> soleSet;  // while a set membership is the only condition
};

WhereClause::WhereClause(Dialect dialect, std::string tenant) : state_(std::make_unique<State>()) {
  state_->dialect = dialect;
  state_->params.push_back(tenant);
  state_->tenant = std::move(tenant);
}

WhereClause::WhereClause(const WhereClause& other)
    : state_(std::make_unique<State>(*other.state_)) {}

WhereClause::WhereClause(WhereClause&& other) noexcept = default;

WhereClause& WhereClause::operator=(const WhereClause& other) {
  if (this != &other) state_ = std::make_unique<State>(*other.state_);
  return *this;
}

WhereClause& WhereClause::operator=(WhereClause&& other) noexcept = default;

WhereClause::~WhereClause() = default;

void WhereClause::add(std::string_view condition, std::initializer_list<Value> values) {
  state_->conditions += " AND ";
  state_->conditions += condition;
  state_->params.insert(state_->params.end(), values);
  state_->soleSet.reset();
}

void WhereClause::addNarrowing(std::string_view condition, std::initializer_list<Value> values) {
  add(condition, values);
  state_->narrowed = true;
}

void WhereClause::addBound(std::string_view condition, const Params& values, bool narrowing) {
  add(condition);
  state_->params.insert(state_->params.end(), values.begin(), values.end());
  if (narrowing) state_->narrowed = true;
}

void WhereClause::addSetMembership(SetTable set) {
  const bool alone = state_->conditions.empty();
  addNarrowing("id IN (" + detail::setMembers(set) + ")");
  state_->params.push_back(state_->tenant);
  state_->params.insert(state_->params.end(), set.keyValues.begin(), set.keyValues.end());
  if (alone) state_->soleSet = std::move(set);
}

Dialect WhereClause::dialect() const {
  return state_->dialect;
}

const std::string& WhereClause::tenant() const {
  return state_->tenant;
}

const WhereClause::SetTable* WhereClause::soleSet() const {
  return state_->soleSet ? &*state_->soleSet : nullptr;
}

bool WhereClause::narrowed() const {
  return state_->narrowed;
}

bool WhereClause::filtered() const {
  return !state_->conditions.empty();
}

std::string WhereClause::tenantCondition() const {
  return detail::tenantEquals(state_->dialect, state_->narrowed);
}

std::string WhereClause::sql() const {
  return tenantCondition() + state_->conditions;
}

const Params& WhereClause::params() const {
  return state_->params;
}

}  // namespace rapport
