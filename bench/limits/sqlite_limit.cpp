// The SQLite limit of a contact create (issue 25): the statements one
// `POST /v1/crm/contacts` runs in rapportd (bench/limits/README.md), issued
// straight through SQLite's C API on a database `rapportd migrate` made (the
// real schema: indexes, FTS5 trigram index, counter triggers), the way
// rapportd's group commit issues them (host/storage/GroupCommit.cpp): one
// writer connection, BEGIN IMMEDIATE, each create inside SAVEPOINT ...
// RELEASE, the search index of the batch's rows written once (the flush of
// host/storage/SearchQueue.cpp, on a database with search_queue: host
// migration 0017), one COMMIT per batch. Prepared statements are kept for the whole
// run, as rapportd's statement cache keeps them. No HTTP, no JSON parsing, no
// threads: what is left is the engine's work, so its rate is the ceiling of
// rapportd's contact_create on the same database.
//
//   sqlite_limit --db FILE [--creates 20000] [--warmup 2000] [--batch 32]
//                [--companies 1] [--synchronous full|normal] [--drop-trigger NAME]...
//
// Prints one line per statement (its time summed over the measured creates,
// triggers included in the statement that fires them) and a summary line:
//   LIMIT_STATEMENT name=contact_insert us_per_create=41.20 share=0.31
//   LIMIT engine=sqlite creates=20000 seconds=4.01 creates_per_s=4987.5 batch=32 ...
// --drop-trigger: drops that trigger first (on a throw-away copy!), to see
// what it costs (e.g. contacts_search_insert, the trigger that queues the
// row for the FTS5 index: without it the flush finds nothing to index).
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string db;
  long creates = 20000;
  long warmup = 2000;
  long batch = 32;  // wrk -c32: at most 32 creates queue for one batch
  long companies = 1;
  std::string synchronous = "full";  // database.sqlite_synchronous (default full)
  std::vector<std::string> dropTriggers;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "sqlite_limit: %s\nusage: sqlite_limit --db FILE [--creates N] [--warmup N] "
               "[--batch N] [--companies N] [--synchronous full|normal] [--drop-trigger NAME]\n",
               why.c_str());
  std::exit(2);
}

long positive(const char* text, const char* name) {
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < 0) usage(std::string(name) + " takes a number");
  return value;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(arg + " needs a value");
    const char* value = argv[++i];
    if (arg == "--db")
      o.db = value;
    else if (arg == "--creates")
      o.creates = positive(value, "--creates");
    else if (arg == "--warmup")
      o.warmup = positive(value, "--warmup");
    else if (arg == "--batch")
      o.batch = positive(value, "--batch");
    else if (arg == "--companies")
      o.companies = positive(value, "--companies");
    else if (arg == "--synchronous")
      o.synchronous = value;
    else if (arg == "--drop-trigger")
      o.dropTriggers.push_back(value);
    else
      usage("unknown argument " + arg);
  }
  if (o.db.empty()) usage("--db is required");
  if (o.creates < 1 || o.batch < 1 || o.companies < 1) usage("counts must be positive");
  if (o.synchronous != "full" && o.synchronous != "normal") usage("--synchronous: full or normal");
  return o;
}

class Database {
 public:
  explicit Database(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
      throw std::runtime_error("cannot open " + path + ": " + sqlite3_errmsg(db_));
    }
  }
  ~Database() { sqlite3_close_v2(db_); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  sqlite3* handle() { return db_; }
  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error != nullptr ? error : "?";
      sqlite3_free(error);
      throw std::runtime_error(sql + ": " + message);
    }
  }

 private:
  sqlite3* db_ = nullptr;
};

// A bound value: text, a number, or NULL.
using Param = std::variant<std::nullptr_t, const std::string*, std::int64_t>;

// One prepared statement of the create and the time spent in it.
class Statement {
 public:
  Statement(Database& db, std::string name, const std::string& sql)
      : db_(db), name_(std::move(name)) {
    if (sqlite3_prepare_v3(db.handle(), sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt_,
                           nullptr) != SQLITE_OK) {
      throw std::runtime_error("prepare " + name_ + ": " + sqlite3_errmsg(db.handle()));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds the values (as rapportd binds them: text, int64 or NULL), steps
  // through every row, resets. The time of all three is the statement's.
  void run(const std::vector<Param>& params, bool measured) {
    const auto start = Clock::now();
    int index = 1;
    for (const Param& param : params) {
      if (const auto* text = std::get_if<const std::string*>(&param)) {
        sqlite3_bind_text(stmt_, index, (*text)->data(), static_cast<int>((*text)->size()),
                          SQLITE_STATIC);
      } else if (const auto* number = std::get_if<std::int64_t>(&param)) {
        sqlite3_bind_int64(stmt_, index, *number);
      } else {
        sqlite3_bind_null(stmt_, index);
      }
      ++index;
    }
    int rc = SQLITE_ROW;
    while (rc == SQLITE_ROW) rc = sqlite3_step(stmt_);
    if (rc != SQLITE_DONE) {
      throw std::runtime_error(name_ + ": " + sqlite3_errmsg(db_.handle()));
    }
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    if (measured) spent_ += Clock::now() - start;
  }

  // Runs it without parameters and returns its first column, row by row.
  std::vector<std::string> rows() {
    std::vector<std::string> out;
    int rc = SQLITE_ROW;
    while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) {
      const auto* text = sqlite3_column_text(stmt_, 0);
      out.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
    }
    if (rc != SQLITE_DONE) throw std::runtime_error(name_ + ": " + sqlite3_errmsg(db_.handle()));
    sqlite3_reset(stmt_);
    return out;
  }

  const std::string& name() const { return name_; }
  Clock::duration spent() const { return spent_; }

 private:
  Database& db_;
  std::string name_;
  sqlite3_stmt* stmt_ = nullptr;
  Clock::duration spent_{};
};

std::int64_t nowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// An id as rapportd's newId makes them: a prefix and 26 base32 characters.
std::string newId(const char* prefix, std::mt19937_64& random) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string id = prefix;
  for (int i = 0; i < 26; ++i) id += kAlphabet[random() % 32];
  return id;
}

// The create's statements, in rapportd's order (README.md lists them with
// the code that issues each).
class ContactCreate {
 public:
  ContactCreate(Database& db, std::string nonce)
      : nonce_(std::move(nonce)),
        begin_(db, "begin_immediate", "BEGIN IMMEDIATE"),
        savepoint_(db, "savepoint", "SAVEPOINT rapport_member"),
        fields_(db, "custom_fields_select",
                "SELECT id, record_type, field_key, label, type, description, required, "
                "is_unique, options, default_value, target, created_at, updated_at FROM "
                "custom_field_definitions WHERE company_id = ? AND record_type = ? AND "
                "deleted_at IS NULL ORDER BY created_at, field_key"),
        insert_(db, "contact_insert",
                "INSERT INTO contacts (id, company_id, name, email, phone, job_title, "
                "crm_company_id, owner_id, tags, notes, custom_fields, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, name, email, "
                "phone, job_title, crm_company_id, owner_id, tags, notes, created_at, "
                "updated_at, custom_fields"),
        tagsInsert_(db, "tags_insert",
                    "INSERT INTO contact_tags (company_id, contact_id, tag_lower, created_at) "
                    "SELECT r.company_id, r.id, t.tag, r.created_at FROM contacts r, (SELECT ? "
                    "AS tag UNION ALL SELECT ?) t WHERE r.company_id = ? AND r.id = ? ORDER BY "
                    "t.tag"),
        sequence_(db, "event_sequence_upsert",
                  "INSERT INTO event_sequences (company_id, last_sequence) VALUES (?, 1) ON "
                  "CONFLICT (company_id) DO UPDATE SET last_sequence = last_sequence + 1"),
        event_(db, "event_insert",
               "INSERT INTO events (company_id, sequence, id, type, module, request_id, data, "
               "created_at, actor_type, actor_id) VALUES (?, (SELECT last_sequence FROM "
               "event_sequences WHERE company_id = ?), ?, ?, ?, ?, ?, ?, ?, ?)"),
        webhooks_(db, "webhooks_select",
                  "SELECT s.webhook_id AS webhook_id, w.is_active AS is_active FROM "
                  "webhook_subscriptions s JOIN webhooks w ON w.company_id = s.company_id AND "
                  "w.id = s.webhook_id WHERE s.company_id = ? AND s.event = ? ORDER BY "
                  "s.webhook_id"),
        release_(db, "release", "RELEASE rapport_member"),
        commit_(db, "commit", "COMMIT") {
    if (hasSearchQueue(db)) {
      // host/storage/SearchQueue.cpp's flush: the tables with notes, then
      // per table (contacts only here) the index's deletes, its inserts and
      // the queue emptied.
      queuedTables_.emplace(db, "search_flush_tables", "SELECT DISTINCT tbl FROM search_queue");
      flushDeletes_.emplace(db, "search_flush_delete",
                            "INSERT INTO contacts_search (contacts_search, rowid, search_text) "
                            "SELECT 'delete', rid, old_text FROM search_queue WHERE tbl = ? AND "
                            "indexed = 1");
      flushInserts_.emplace(db, "search_flush_insert",
                            "INSERT INTO contacts_search (rowid, search_text) SELECT r.seq, "
                            "r.search_text FROM search_queue q JOIN contacts r ON r.seq = q.rid "
                            "WHERE q.tbl = ?");
      flushDrop_.emplace(db, "search_flush_drop", "DELETE FROM search_queue WHERE tbl = ?");
    }
  }

  void begin(bool measured) { begin_.run({}, measured); }
  // The batch's search index (after the last member's RELEASE, as rapportd's
  // leader writes it), then its COMMIT.
  void commit(bool measured) {
    if (queuedTables_) {
      const auto start = Clock::now();
      for (const std::string& table : queuedTables_->rows()) {
        if (table != "contacts") throw std::runtime_error("search_queue holds " + table);
        flushDeletes_->run({&table}, false);
        flushInserts_->run({&table}, false);
        flushDrop_->run({&table}, false);
      }
      if (measured) flushSpent_ += Clock::now() - start;
    }
    commit_.run({}, measured);
  }

  // One create of contact_create's body (bench/scenarios.sh) for `company`.
  void create(const std::string& company, long seq, std::mt19937_64& random, bool measured) {
    static const std::string kContact = "contact", kPhone = "+44 20 7946 0000", kJob = "Buyer",
                             kTags = R"(["lead","bench"])", kNoCustom = "{}", kBench = "bench",
                             kLead = "lead", kType = "crm.contact.created", kModule = "contacts",
                             kUser = "user", kActor = "user_limitbenchowner000000000";
    const std::string id = newId("cont_", random);
    // The run's nonce keeps names and e-mails unique across runs on one database.
    const std::string tag = nonce_ + "-" + std::to_string(seq);
    const std::string name = "New Contact " + tag;
    const std::string email = "new." + tag + "@bench.example";
    const std::string eventId = newId("evt_", random);
    const std::string requestId = newId("", random).substr(0, 16);
    const std::int64_t now = nowMicros();
    // The event's data: the contact as the answer shows it (rapportd's JSON).
    const std::string at = "2026-11-28T21:14:35.098525Z";
    const std::string data = R"({"id":")" + id + R"(","name":")" + name + R"(","email":")" + email +
                             R"(","phone":"+44 20 7946 0000","job_title":"Buyer",)" +
                             R"("company_id":null,"owner_id":null,"tags":["lead","bench"],)" +
                             R"("notes":null,"created_at":")" + at + R"(","updated_at":")" + at +
                             R"(","custom_fields":{}})";
    savepoint_.run({}, measured);
    fields_.run({&company, &kContact}, measured);
    insert_.run({&id, &company, &name, &email, &kPhone, &kJob, nullptr, nullptr, &kTags, nullptr,
                 &kNoCustom, now, now},
                measured);
    tagsInsert_.run({&kBench, &kLead, &company, &id}, measured);
    sequence_.run({&company}, measured);
    event_.run(
        {&company, &company, &eventId, &kType, &kModule, &requestId, &data, now, &kUser, &kActor},
        measured);
    webhooks_.run({&company, &kType}, measured);
    release_.run({}, measured);
  }

  // Each statement's name and time, in order (search_flush: the four
  // statements of the flush together, when the database has search_queue).
  std::vector<std::pair<std::string, Clock::duration>> statements() const {
    std::vector<std::pair<std::string, Clock::duration>> out;
    for (const Statement* s : {&begin_, &savepoint_, &fields_, &insert_, &tagsInsert_, &sequence_,
                               &event_, &webhooks_, &release_}) {
      out.emplace_back(s->name(), s->spent());
    }
    if (queuedTables_) out.emplace_back("search_flush", flushSpent_);
    out.emplace_back(commit_.name(), commit_.spent());
    return out;
  }

 private:
  static bool hasSearchQueue(Database& db) {
    Statement found(db, "search_queue_present",
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_queue'");
    return !found.rows().empty();
  }

  std::string nonce_;
  Statement begin_, savepoint_, fields_, insert_, tagsInsert_, sequence_, event_, webhooks_,
      release_, commit_;
  std::optional<Statement> queuedTables_, flushDeletes_, flushInserts_, flushDrop_;
  Clock::duration flushSpent_{};
};

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  try {
    Database db(o.db);
    // rapportd's connection set-up (host/storage/Connection.cpp).
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(o.synchronous == "full" ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("PRAGMA temp_store = MEMORY");
    for (const std::string& trigger : o.dropTriggers) db.exec("DROP TRIGGER " + trigger);

    std::mt19937_64 random(std::random_device{}());
    ContactCreate create(db, "limit" + newId("", random).substr(0, 6));
    std::vector<std::string> companies;
    for (long k = 1; k <= o.companies; ++k) {
      companies.push_back("comp_limit" + std::to_string(k));
    }
    long seq = 0;
    const auto batches = [&](long count, bool measured) {
      for (long done = 0; done < count;) {
        create.begin(measured);
        for (long member = 0; member < o.batch && done < count; ++member, ++done, ++seq) {
          create.create(companies[static_cast<std::size_t>(seq % o.companies)], seq, random,
                        measured);
        }
        create.commit(measured);
      }
    };
    batches(o.warmup, false);
    const auto start = Clock::now();
    batches(o.creates, true);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

    Clock::duration statements{};
    for (const auto& [name, spent] : create.statements()) statements += spent;
    const double total = std::chrono::duration<double>(statements).count();
    for (const auto& [name, time] : create.statements()) {
      const double spent = std::chrono::duration<double>(time).count();
      std::printf("LIMIT_STATEMENT name=%s us_per_create=%.2f share=%.3f\n", name.c_str(),
                  spent * 1e6 / static_cast<double>(o.creates), total > 0 ? spent / total : 0.0);
    }
    std::printf(
        "LIMIT engine=sqlite creates=%ld seconds=%.3f creates_per_s=%.1f batch=%ld companies=%ld "
        "synchronous=%s us_per_create=%.2f\n",
        o.creates, seconds, static_cast<double>(o.creates) / seconds, o.batch, o.companies,
        o.synchronous.c_str(), seconds * 1e6 / static_cast<double>(o.creates));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "sqlite_limit: %s\n", error.what());
    return 1;
  }
  return 0;
}
