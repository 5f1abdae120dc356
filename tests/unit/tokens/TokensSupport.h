// What the tokens tests share: a migrated database of the engine under test,
// a clock moved by hand, a seeded user and company, a polling wait on a
// real condition, and a second PostgreSQL connection of libpq's own.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "AccountsTestSupport.h"
#include "accounts/Clock.h"
#include "rapport/db.h"
#include "storage/SqlDatabase.h"

namespace rapport::test::tokens {

// The accounts tests' migrated database and hand-moved clock.
using rapport::test::accounts::hostMigrations;
using rapport::test::accounts::ManualClock;

// A fresh database (or the one at `url`) with every host migration applied.
std::unique_ptr<rapport::host::SqlDatabase> openMigratedDatabase(const std::string& url = {});

// A new user owning a new company (or a new company owned by `existingUser`);
// returns {user id, company id}.
std::pair<std::string, std::string> seedOwner(rapport::Queryable& db, std::int64_t now,
                                              const std::string& label,
                                              const std::string& existingUser = {});

// Polls `condition` every 5 ms until it holds or `limit` passes.
bool waitUntil(const std::function<bool()>& condition, std::chrono::milliseconds limit);

std::int64_t countRows(rapport::Queryable& db, const std::string& sql,
                       const rapport::Params& params = {});

}  // namespace rapport::test::tokens
