#include "accounts/UserStore.h"

#include "rapport/validation.h"

namespace rapport::host::accounts::users {

namespace {

constexpr std::string_view kColumns =
    "id, name, email, password_hash, disabled, two_factor_enabled, email_verified_at, created_at, "
    "updated_at";

UserRecord fromRow(const Row& row) {
  UserRecord user;
  user.id = row.str("id");
  user.name = row.str("name");
  user.email = row.str("email");
  user.passwordHash = row.optStr("password_hash");
  user.disabled = row.flag("disabled");
  user.twoFactorEnabled = row.flag("two_factor_enabled");
  user.emailVerifiedAt = row.optI64("email_verified_at");
  user.createdAt = row.i64("created_at");
  user.updatedAt = row.i64("updated_at");
  return user;
}

std::optional<UserRecord> findOne(Queryable& db, std::string_view where, const Value& key) {
  const Result result = db.query(
      "SELECT " + std::string(kColumns) + " FROM users WHERE " + std::string(where), {key});
  if (result.empty()) return std::nullopt;
  return fromRow(result.front());
}

}  // namespace

std::optional<UserRecord> findByEmail(Queryable& db, const std::string& emailLower) {
  return findOne(db, "email_lower = ?", emailLower);
}

std::optional<UserRecord> findById(Queryable& db, const std::string& id) {
  return findOne(db, "id = ?", id);
}

bool emailTaken(Queryable& db, const std::string& emailLower) {
  return !db.query("SELECT 1 FROM users WHERE email_lower = ?", {emailLower}).empty();
}

bool emailTakenByOther(Queryable& db, const std::string& emailLower,
                       const std::string& exceptUserId) {
  return !db.query("SELECT 1 FROM users WHERE email_lower = ? AND id <> ?",
                   {emailLower, exceptUserId})
              .empty();
}

void insert(Queryable& db, const UserRecord& user) {
  db.exec(
      "INSERT INTO users (id, name, email, email_lower, password_hash, disabled, "
      "two_factor_enabled, email_verified_at, created_at, updated_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {user.id, user.name, user.email, rapport::toLower(user.email), user.passwordHash,
       user.disabled, user.twoFactorEnabled, user.emailVerifiedAt, user.createdAt, user.updatedAt});
}

void updateProfile(Queryable& db, const UserRecord& user) {
  // The right-hand sides read the row as it was: the proof stays only for
  // the same address.
  const std::string emailLower = rapport::toLower(user.email);
  db.exec(
      "UPDATE users SET name = ?, email = ?, email_verified_at = CASE WHEN email_lower = ? THEN "
      "email_verified_at ELSE NULL END, email_lower = ?, updated_at = ? WHERE id = ?",
      {user.name, user.email, emailLower, emailLower, user.updatedAt, user.id});
}

bool markEmailVerified(Queryable& db, const std::string& userId, const std::string& emailLower,
                       std::int64_t at) {
  return db.exec(
             "UPDATE users SET email_verified_at = COALESCE(email_verified_at, ?) WHERE id = ? "
             "AND email_lower = ?",
             {at, userId, emailLower}) > 0;
}

void updatePasswordHash(Queryable& db, const std::string& userId, const std::string& hash,
                        std::int64_t at) {
  db.exec("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?", {hash, at, userId});
}

Json tokenUserJson(const UserRecord& user, const std::string& companyId) {
  return Json::object(
      {{"id", user.id}, {"name", user.name}, {"email", user.email}, {"company_id", companyId}});
}

}  // namespace rapport::host::accounts::users
