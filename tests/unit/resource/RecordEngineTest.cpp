// The record engine of SDK 8.0 (rapport/resource.h, sdk/src/resource/): the
// kinds DateTime, Enum, Tags, Reference and Related, create-only and
// read-only access, modules that are not enabled, the module's rules, the
// declaration's new checks and the generated table migration. Engine-free:
// the SQL is asserted as text (unit.listing applies the generated tables of
// the first-party modules on both engines).
#include <cppunit/extensions/HelperMacros.h>

#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "rapport/error.h"
#include "rapport/listing_tables.h"
#include "rapport/resource.h"

// Named (not anonymous): the unity build joins this file with ResourceTest.cpp.
namespace record_engine_test {

using rapport::Dialect;
using rapport::FieldAccess;
using rapport::FieldErrors;
using rapport::FieldKind;
using rapport::Json;
using rapport::Request;
using rapport::Resource;
using rapport::ResourceSpec;
using rapport::ResourceValues;
using rapport::ResourceWrite;
using rapport::Value;
using Messages = std::vector<std::string>;

// 2024-03-01T10:00:00Z in microseconds.
constexpr std::int64_t kMarch1 = 1709287200000000LL;

// A resource with every new kind, a column of its own, create-only and
// read-only fields, and the engine's storage.
ResourceSpec tickets() {
  return {
      .path = "/crm/tickets",
      .table = "tickets",
      .recordType = "ticket",
      .idPrefix = "tick_",
      .eventPrefix = "crm.ticket",
      .noun = "Ticket",
      .fields =
          {{.name = "subject", .required = true, .searchable = true, .sortable = true},
           {.name = "code", .maxLength = 20, .unique = true, .searchable = true},
           {.name = "email",
            .kind = FieldKind::Email,
            .filterable = true,
            .anyCase = true,
            .indexed = true},
           {.name = "priority",
            .kind = FieldKind::Enum,
            .defaultValue = "low",
            .filterable = true,
            .options = {"low", "high"}},
           {.name = "due_at", .kind = FieldKind::DateTime, .sortable = true},
           {.name = "company_id",
            .kind = FieldKind::Reference,
            .filterable = true,
            .column = "crm_company_id",
            .references = {{.recordType = "company",
                            .notFound = "Company not found.",
                            .module = "companies"}},
            .access = FieldAccess::CreateOnly},
           {.name = "score",
            .kind = FieldKind::Integer,
            .sortable = true,
            .sortExpression = "coalesce(score, 0)"},
           {.name = "done", .kind = FieldKind::Boolean, .defaultValue = false},
           {.name = "tags", .kind = FieldKind::Tags},
           {.name = "related_to",
            .kind = FieldKind::Related,
            .column = "related",
            .indexed = true,
            .references =
                {{.recordType = "contact", .notFound = "Contact not found.", .module = "contacts"},
                 {.recordType = "deal", .notFound = "Deal not found.", .module = "deals"},
                 {.recordType = "user", .notFound = "User not found."}}},
           {.name = "status",
            .kind = FieldKind::Enum,
            .defaultValue = "open",
            .options = {"open", "closed"},
            .access = FieldAccess::ReadOnly},
           {.name = "closed_at", .kind = FieldKind::DateTime, .access = FieldAccess::ReadOnly}},
      .storage = {.migration = "0003_tickets",
                  .replaces = {"0001_tickets", "0002_ticket_listing"},
                  .recordColumn = "ticket_id"},
  };
}

// The field of tickets() named `name`.
rapport::ResourceField& fieldOf(ResourceSpec& spec, const std::string& name) {
  for (rapport::ResourceField& field : spec.fields) {
    if (field.name == name) return field;
  }
  throw std::logic_error("no field " + name);
}

rapport::ResourceAction winAction() {
  return {.path = "/win",
          .event = "crm.ticket.won",
          .message = "Ticket won.",
          .apply = [](const rapport::ActionContext&) { return rapport::ActionOutcome{}; }};
}

// The message of the mistake `change` makes to tickets(), or "" when accepted.
std::string refusal(const std::function<void(ResourceSpec&)>& change) {
  ResourceSpec spec = tickets();
  change(spec);
  try {
    Resource resource(spec);
    return "";
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
}

std::string refused(const std::string& message) {
  return "resource declaration: " + message;
}

// The 422 field errors of `call`; fails the test when it passes or answers
// another status.
FieldErrors errorsOf(const std::function<void()>& call) {
  try {
    call();
  } catch (const rapport::Error& error) {
    CPPUNIT_ASSERT_EQUAL(422, error.status());
    return error.errors();
  }
  CPPUNIT_FAIL("no 422");
  return {};
}

FieldErrors validationErrors(const Json& body, ResourceWrite write,
                             const std::set<std::string>& unavailable = {},
                             const ResourceSpec& spec = tickets()) {
  return errorsOf([&] { Resource(spec).validate(body, write, unavailable); });
}

Messages messagesOf(const FieldErrors& errors, const std::string& field) {
  const auto found = errors.find(field);
  return found == errors.end() ? Messages{} : found->second;
}

// The columns validate() wrote, in order.
std::vector<std::string> columnsOf(const ResourceValues& values) {
  std::vector<std::string> columns;
  for (const auto& [column, value] : values) columns.push_back(column);
  return columns;
}

const Value& valueAt(const ResourceValues& values, const std::string& column) {
  for (const auto& [name, value] : values) {
    if (name == column) return value;
  }
  throw std::logic_error("no value for " + column);
}

Request query(std::map<std::string, std::string> parameters) {
  Request request;
  request.query = std::move(parameters);
  return request;
}

// The text of `sql` before `marker` (the table's part of a migration).
std::string before(const std::string& sql, const std::string& marker) {
  const auto at = sql.find(marker);
  return at == std::string::npos ? sql : sql.substr(0, at);
}

// What the generated migration of tickets() holds before its listing tables,
// on each engine: the table, its indexes and its search index.
const std::string kIndexes =
    "CREATE UNIQUE INDEX tickets_code ON tickets (company_id, code);\n"
    "CREATE INDEX tickets_created ON tickets (company_id, created_at, id);\n"
    "CREATE INDEX tickets_updated ON tickets (company_id, updated_at, id);\n"
    "CREATE INDEX tickets_subject ON tickets (company_id, lower(subject), id);\n"
    "CREATE INDEX tickets_email ON tickets (company_id, lower(email), created_at, id);\n"
    "CREATE INDEX tickets_email_eq ON tickets (company_id, email, created_at, id);\n"
    "CREATE INDEX tickets_priority ON tickets (company_id, priority, created_at, id);\n"
    "CREATE INDEX tickets_due ON tickets (company_id, coalesce(due_at, -1), id);\n"
    "CREATE INDEX tickets_crm_company ON tickets (company_id, crm_company_id, created_at, id);\n"
    "CREATE INDEX tickets_score ON tickets (company_id, coalesce(score, 0), id);\n"
    "CREATE INDEX tickets_related ON tickets (company_id, related_type, related_id, created_at, "
    "id);\n";

std::string ticketColumns(const std::string& boolean) {
  return "  company_id TEXT NOT NULL,\n"
         "  subject TEXT NOT NULL,\n"
         "  code TEXT,\n"
         "  email TEXT,\n"
         "  priority TEXT NOT NULL,\n"
         "  due_at BIGINT,\n"
         "  crm_company_id TEXT,\n"
         "  score BIGINT,\n"
         "  done " +
         boolean +
         " NOT NULL,\n"
         "  tags TEXT NOT NULL DEFAULT '[]',\n"
         "  related_type TEXT,\n"
         "  related_id TEXT,\n"
         "  status TEXT NOT NULL,\n"
         "  closed_at BIGINT,\n"
         "  created_at BIGINT NOT NULL,\n"
         "  updated_at BIGINT NOT NULL,\n";
}

const std::string kSqliteTable =
    "-- Generated by rapport::Resource for tickets (rapport/resource.h, \"The table\").\n"
    "CREATE TABLE tickets (\n"
    "  seq INTEGER PRIMARY KEY,\n"
    "  id TEXT NOT NULL UNIQUE,\n" +
    ticketColumns("INTEGER") +
    "  search_text TEXT GENERATED ALWAYS AS (lower(subject || char(10) || coalesce(code, ''))) "
    "STORED\n"
    ");\n" +
    kIndexes +
    "CREATE VIRTUAL TABLE tickets_search USING fts5(\n"
    "  search_text, content = 'tickets', content_rowid = 'seq', tokenize = 'trigram');\n"
    "CREATE TRIGGER tickets_search_insert AFTER INSERT ON tickets BEGIN\n"
    "  INSERT INTO tickets_search (rowid, search_text) VALUES (new.seq, new.search_text);\n"
    "END;\n"
    "CREATE TRIGGER tickets_search_delete AFTER DELETE ON tickets BEGIN\n"
    "  INSERT INTO tickets_search (tickets_search, rowid, search_text)\n"
    "    VALUES ('delete', old.seq, old.search_text);\n"
    "END;\n"
    "CREATE TRIGGER tickets_search_update AFTER UPDATE OF subject, code ON tickets BEGIN\n"
    "  INSERT INTO tickets_search (tickets_search, rowid, search_text)\n"
    "    VALUES ('delete', old.seq, old.search_text);\n"
    "  INSERT INTO tickets_search (rowid, search_text) VALUES (new.seq, new.search_text);\n"
    "END;\n";

const std::string kPostgresqlTable =
    "-- Generated by rapport::Resource for tickets (rapport/resource.h, \"The table\").\n"
    "CREATE EXTENSION IF NOT EXISTS pg_trgm;\n"
    "CREATE TABLE tickets (\n"
    "  id TEXT PRIMARY KEY,\n" +
    ticketColumns("BOOLEAN") +
    "  search_text TEXT GENERATED ALWAYS AS (lower(subject || E'\\n' || coalesce(code, ''))) "
    "STORED\n"
    ");\n" +
    kIndexes + "CREATE INDEX tickets_search ON tickets USING gin (search_text gin_trgm_ops);\n";

}  // namespace record_engine_test

using namespace record_engine_test;

class RecordEngineTest : public CppUnit::TestFixture {
  CPPUNIT_TEST_SUITE(RecordEngineTest);
  CPPUNIT_TEST(testNewDeclarationMistakesAreRefused);
  CPPUNIT_TEST(testReservedNameNeedsAColumnOfItsOwn);
  CPPUNIT_TEST(testStorageMistakesAreRefused);
  CPPUNIT_TEST(testActionsNeedEveryPart);
  CPPUNIT_TEST(testCreateWritesEachNewKind);
  CPPUNIT_TEST(testUpdateReadsCreateOnlyAndClearsTagsAndRelated);
  CPPUNIT_TEST(testNewKindsMessages);
  CPPUNIT_TEST(testRelatedMembersMessages);
  CPPUNIT_TEST(testModulesNotEnabledRefuseTheirFields);
  CPPUNIT_TEST(testRulesCheckJoinsTheSame422);
  CPPUNIT_TEST(testColumnsAndJsonOfNewKinds);
  CPPUNIT_TEST(testWhereTagFilter);
  CPPUNIT_TEST(testWhereNewFilters);
  CPPUNIT_TEST(testWhereRefusals);
  CPPUNIT_TEST(testListFiltersRunAfterTheFieldsAndJoinThe422);
  CPPUNIT_TEST(testDateTimeFilterReadsMicroseconds);
  CPPUNIT_TEST(testTagsAndRelatedAreNotFilterable);
  CPPUNIT_TEST(testMigrationOnEachEngine);
  CPPUNIT_TEST(testSearchQueueFollowUp);
  CPPUNIT_TEST(testMigrationWithoutTagsOrSearch);
  CPPUNIT_TEST(testNoMigrationWithoutStorage);
  CPPUNIT_TEST(testCustomFieldsAddTheirColumn);
  CPPUNIT_TEST(testFieldAddedLater);
  CPPUNIT_TEST(testUniqueSortableFieldHasASortIndex);
  CPPUNIT_TEST_SUITE_END();

 public:
  void testNewDeclarationMistakesAreRefused() {
    CPPUNIT_ASSERT_EQUAL(std::string(""), refusal([](ResourceSpec&) {}));
    CPPUNIT_ASSERT_EQUAL(
        refused("the reference 'company_id' needs exactly one target"),
        refusal([](ResourceSpec& s) { fieldOf(s, "company_id").references = {}; }));
    CPPUNIT_ASSERT_EQUAL(refused("the reference 'company_id' needs exactly one target"),
                         refusal([](ResourceSpec& s) {
                           auto& references = fieldOf(s, "company_id").references;
                           references.push_back(references.front());
                         }));
    CPPUNIT_ASSERT_EQUAL(
        refused("the related field 'related_to' needs at least one target"),
        refusal([](ResourceSpec& s) { fieldOf(s, "related_to").references = {}; }));
    const std::string target =
        refused("a target of 'related_to' needs a record type and its notFound message");
    CPPUNIT_ASSERT_EQUAL(target, refusal([](ResourceSpec& s) {
                           fieldOf(s, "related_to").references[1].recordType = "";
                         }));
    CPPUNIT_ASSERT_EQUAL(target, refusal([](ResourceSpec& s) {
                           fieldOf(s, "related_to").references[2].notFound = "";
                         }));
    CPPUNIT_ASSERT_EQUAL(refused("only a Reference or Related field has references ('subject')"),
                         refusal([](ResourceSpec& s) {
                           fieldOf(s, "subject").references = fieldOf(s, "company_id").references;
                         }));
    CPPUNIT_ASSERT_EQUAL(refused("the enum 'priority' has no options"),
                         refusal([](ResourceSpec& s) {
                           fieldOf(s, "priority").options = {};
                           fieldOf(s, "priority").defaultValue.reset();
                         }));
    CPPUNIT_ASSERT_EQUAL(
        refused("the default of 'priority' does not match its kind"),
        refusal([](ResourceSpec& s) { fieldOf(s, "priority").defaultValue = "mid"; }));
    for (const std::string name : {"tags", "related_to"}) {
      const std::string message =
          refused("the field '" + name + "' cannot be sortable, unique or searchable");
      CPPUNIT_ASSERT_EQUAL(message,
                           refusal([&](ResourceSpec& s) { fieldOf(s, name).sortable = true; }));
      CPPUNIT_ASSERT_EQUAL(message, refusal([&](ResourceSpec& s) {
                             fieldOf(s, "code").unique = false;
                             fieldOf(s, name).unique = true;
                           }));
      CPPUNIT_ASSERT_EQUAL(message,
                           refusal([&](ResourceSpec& s) { fieldOf(s, name).searchable = true; }));
    }
    for (const std::string name : {"due_at", "score", "done", "company_id"}) {
      CPPUNIT_ASSERT_EQUAL(refused("the searchable field '" + name + "' is not text"),
                           refusal([&](ResourceSpec& s) { fieldOf(s, name).searchable = true; }));
    }
    // lower(score) is no SQL on PostgreSQL: the generated index and the filter
    // of an any-case number would fail there.
    for (const std::string name : {"due_at", "score", "done", "company_id"}) {
      CPPUNIT_ASSERT_EQUAL(refused("the any-case field '" + name + "' is not text"),
                           refusal([&](ResourceSpec& s) {
                             fieldOf(s, name).filterable = true;
                             fieldOf(s, name).anyCase = true;
                           }));
    }
    // Enum is text: it may be searched.
    CPPUNIT_ASSERT_EQUAL(std::string(""), refusal([](ResourceSpec& s) {
                           fieldOf(s, "priority").searchable = true;
                         }));
    CPPUNIT_ASSERT_EQUAL(refused("at most one field may be Tags"), refusal([](ResourceSpec& s) {
                           s.fields.push_back({.name = "labels", .kind = FieldKind::Tags});
                         }));
  }

  void testReservedNameNeedsAColumnOfItsOwn() {
    // company_id answers as company_id while its column is crm_company_id.
    CPPUNIT_ASSERT_EQUAL(refused("the field name 'company_id' is reserved"),
                         refusal([](ResourceSpec& s) { fieldOf(s, "company_id").column = ""; }));
    CPPUNIT_ASSERT_EQUAL(
        refused("invalid column 'company_id' for 'company_id'"),
        refusal([](ResourceSpec& s) { fieldOf(s, "company_id").column = "company_id"; }));
    CPPUNIT_ASSERT_EQUAL(
        refused("invalid column 'created_at' for 'due_at'"),
        refusal([](ResourceSpec& s) { fieldOf(s, "due_at").column = "created_at"; }));
    CPPUNIT_ASSERT_EQUAL(refused("invalid column 'Due At' for 'due_at'"),
                         refusal([](ResourceSpec& s) { fieldOf(s, "due_at").column = "Due At"; }));
  }

  void testStorageMistakesAreRefused() {
    CPPUNIT_ASSERT_EQUAL(refused("the engine's storage needs its recordColumn"),
                         refusal([](ResourceSpec& s) { s.storage.recordColumn = ""; }));
    CPPUNIT_ASSERT_EQUAL(refused("a Tags field needs the storage's recordColumn"),
                         refusal([](ResourceSpec& s) { s.storage = {}; }));
    // Without tags, the module may keep its own tables and counts.
    CPPUNIT_ASSERT_EQUAL(std::string(""), refusal([](ResourceSpec& s) {
                           s.storage = {};
                           s.fields.erase(s.fields.begin() + 8);  // tags
                           s.countsTable = "ticket_counts";
                         }));
    // Deals: the module's own table, the engine's listing names.
    CPPUNIT_ASSERT_EQUAL(std::string(""),
                         refusal([](ResourceSpec& s) { s.storage.migration = ""; }));
    const std::string column = refused("the storage's recordColumn must be \"<record>_id\"");
    for (const std::string bad : {"ticket", "_id", "Ticket_id", "ticket-id", "ticket_ids"}) {
      CPPUNIT_ASSERT_EQUAL(column, refusal([&](ResourceSpec& s) { s.storage.recordColumn = bad; }));
    }
    CPPUNIT_ASSERT_EQUAL(std::string(""),
                         refusal([](ResourceSpec& s) { s.storage.recordColumn = "t_id"; }));
    CPPUNIT_ASSERT_EQUAL(refused("the storage's recordColumn names the counts table"),
                         refusal([](ResourceSpec& s) { s.countsTable = "ticket_counts"; }));
  }

  void testActionsNeedEveryPart() {
    CPPUNIT_ASSERT_EQUAL(std::string(""),
                         refusal([](ResourceSpec& s) { s.actions = {winAction()}; }));
    const std::string message =
        refused("an action needs a path \"/<name>\", an event, a message and apply");
    const std::vector<std::function<void(rapport::ResourceAction&)>> mistakes = {
        [](auto& a) { a.path = ""; },    [](auto& a) { a.path = "/"; },
        [](auto& a) { a.path = "win"; }, [](auto& a) { a.event = ""; },
        [](auto& a) { a.message = ""; }, [](auto& a) { a.apply = nullptr; }};
    for (const auto& mistake : mistakes) {
      CPPUNIT_ASSERT_EQUAL(message, refusal([&](ResourceSpec& s) {
                             rapport::ResourceAction action = winAction();
                             mistake(action);
                             s.actions = {winAction(), action};
                           }));
    }
  }

  void testCreateWritesEachNewKind() {
    const ResourceValues values = Resource(tickets()).validate(
        Json::object({{"subject", "Printer"},
                      {"priority", "high"},
                      {"due_at", "2024-03-01T10:00:00Z"},
                      {"company_id", "comp_9"},
                      {"tags", Json(Json::Array{"VIP", " vip ", "Gold "})},
                      {"related_to", Json::object({{"type", "deal"}, {"id", "deal_1"}})},
                      // Read-only: ignored; a new record starts at the default.
                      {"status", "closed"},
                      {"closed_at", "2024-03-01T10:00:00Z"}}),
        ResourceWrite::Create);
    const std::vector<std::string> expected = {
        "subject", "code", "email", "priority",     "due_at",     "crm_company_id",
        "score",   "done", "tags",  "related_type", "related_id", "status"};
    CPPUNIT_ASSERT(columnsOf(values) == expected);
    CPPUNIT_ASSERT_EQUAL(std::string("high"), valueAt(values, "priority").asString());
    CPPUNIT_ASSERT_EQUAL(kMarch1, valueAt(values, "due_at").asInt());
    CPPUNIT_ASSERT_EQUAL(std::string("comp_9"), valueAt(values, "crm_company_id").asString());
    CPPUNIT_ASSERT_EQUAL(false, valueAt(values, "done").asBool());
    // Trimmed, the first spelling of each tag, as JSON text.
    CPPUNIT_ASSERT_EQUAL(std::string("[\"VIP\",\"Gold\"]"), valueAt(values, "tags").asString());
    CPPUNIT_ASSERT_EQUAL(std::string("deal"), valueAt(values, "related_type").asString());
    CPPUNIT_ASSERT_EQUAL(std::string("deal_1"), valueAt(values, "related_id").asString());
    CPPUNIT_ASSERT_EQUAL(std::string("open"), valueAt(values, "status").asString());

    // Absent: the defaults, no tags, nothing related.
    const ResourceValues bare =
        Resource(tickets()).validate(Json::object({{"subject", "A"}}), ResourceWrite::Create);
    CPPUNIT_ASSERT(columnsOf(bare) == expected);
    CPPUNIT_ASSERT_EQUAL(std::string("low"), valueAt(bare, "priority").asString());
    CPPUNIT_ASSERT(valueAt(bare, "due_at").isNull());
    CPPUNIT_ASSERT(valueAt(bare, "crm_company_id").isNull());
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), valueAt(bare, "tags").asString());
    CPPUNIT_ASSERT(valueAt(bare, "related_type").isNull());
    CPPUNIT_ASSERT(valueAt(bare, "related_id").isNull());
    // A date-time with an offset and a fraction.
    const ResourceValues offset = Resource(tickets()).validate(
        Json::object({{"subject", "A"}, {"due_at", "2024-03-01T12:00:00.25+02:00"}}),
        ResourceWrite::Create);
    CPPUNIT_ASSERT_EQUAL(kMarch1 + 250000, valueAt(offset, "due_at").asInt());
  }

  void testUpdateReadsCreateOnlyAndClearsTagsAndRelated() {
    // The create-only field is read on update too: the handler compares it
    // with the current value. Read-only fields stay out of an update.
    const ResourceValues values =
        Resource(tickets()).validate(Json::object({{"company_id", "comp_2"},
                                                   {"tags", nullptr},
                                                   {"related_to", nullptr},
                                                   {"status", "closed"},
                                                   {"closed_at", "2024-03-01T10:00:00Z"},
                                                   {"priority", nullptr}}),
                                     ResourceWrite::Update);
    const std::vector<std::string> expected = {"priority", "crm_company_id", "tags", "related_type",
                                               "related_id"};
    CPPUNIT_ASSERT(columnsOf(values) == expected);
    CPPUNIT_ASSERT_EQUAL(std::string("low"), valueAt(values, "priority").asString());
    CPPUNIT_ASSERT_EQUAL(std::string("comp_2"), valueAt(values, "crm_company_id").asString());
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), valueAt(values, "tags").asString());
    CPPUNIT_ASSERT(valueAt(values, "related_type").isNull());
    CPPUNIT_ASSERT(valueAt(values, "related_id").isNull());
    // A create-only null is read as null (the handler allows it when current).
    const ResourceValues cleared = Resource(tickets()).validate(
        Json::object({{"company_id", nullptr}}), ResourceWrite::Update);
    CPPUNIT_ASSERT(columnsOf(cleared) == std::vector<std::string>{"crm_company_id"});
    CPPUNIT_ASSERT(valueAt(cleared, "crm_company_id").isNull());
    // Only read-only fields: nothing to write.
    CPPUNIT_ASSERT(
        Resource(tickets())
            .validate(Json::object({{"status", "closed"}, {"closed_at", 5}}), ResourceWrite::Update)
            .empty());
  }

  void testNewKindsMessages() {
    const FieldErrors errors = validationErrors(Json::object({{"subject", "A"},
                                                              {"priority", "urgent"},
                                                              {"due_at", "tomorrow"},
                                                              {"company_id", 7},
                                                              {"tags", "VIP"},
                                                              {"related_to", "deal_1"},
                                                              {"status", "nonsense"},
                                                              {"closed_at", "never"}}),
                                                ResourceWrite::Create);
    CPPUNIT_ASSERT(messagesOf(errors, "priority") == Messages{"The selected priority is invalid."});
    CPPUNIT_ASSERT(messagesOf(errors, "due_at") ==
                   Messages{"The due_at is not a valid date-time."});
    CPPUNIT_ASSERT(messagesOf(errors, "company_id") ==
                   Messages{"The company_id must be a string."});
    CPPUNIT_ASSERT(messagesOf(errors, "tags") == Messages{"The tags must be an array."});
    CPPUNIT_ASSERT(messagesOf(errors, "related_to") ==
                   Messages{"The related_to must be an object."});
    // Read-only fields are never read, so never refused.
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, errors.size());
    // A tag's message names its position.
    const FieldErrors tags = validationErrors(
        Json::object({{"subject", "A"}, {"tags", Json(Json::Array{"ok", 3, " "})}}),
        ResourceWrite::Update);
    CPPUNIT_ASSERT(messagesOf(tags, "tags.1") == Messages{"The tags.1 must be a string."});
    CPPUNIT_ASSERT(messagesOf(tags, "tags.2") ==
                   Messages{"The tags.2 must be between 1 and 50 characters."});
    // A required Related field.
    ResourceSpec required = tickets();
    fieldOf(required, "related_to").required = true;
    CPPUNIT_ASSERT(messagesOf(validationErrors(Json::object({{"subject", "A"}}),
                                               ResourceWrite::Create, {}, required),
                              "related_to") == Messages{"The related_to field is required."});
    CPPUNIT_ASSERT(messagesOf(validationErrors(Json::object({{"related_to", nullptr}}),
                                               ResourceWrite::Update, {}, required),
                              "related_to") == Messages{"The related_to field is required."});
  }

  void testRelatedMembersMessages() {
    const FieldErrors wrong = validationErrors(
        Json::object({{"related_to", Json::object({{"type", "task"}, {"id", 5}})}}),
        ResourceWrite::Update);
    CPPUNIT_ASSERT(messagesOf(wrong, "related_to.type") ==
                   Messages{"The selected related_to.type is invalid."});
    CPPUNIT_ASSERT(messagesOf(wrong, "related_to.id") ==
                   Messages{"The related_to.id must be a string."});
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, wrong.size());
    const FieldErrors empty =
        validationErrors(Json::object({{"related_to", Json::object()}}), ResourceWrite::Update);
    CPPUNIT_ASSERT(messagesOf(empty, "related_to.type") ==
                   Messages{"The related_to.type field is required."});
    CPPUNIT_ASSERT(messagesOf(empty, "related_to.id") ==
                   Messages{"The related_to.id field is required."});
    // One member wrong: nothing is written for the other.
    const FieldErrors blankId = validationErrors(
        Json::object({{"related_to", Json::object({{"type", "user"}, {"id", " "}})}}),
        ResourceWrite::Update);
    CPPUNIT_ASSERT(messagesOf(blankId, "related_to.id") ==
                   Messages{"The related_to.id field is required."});
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, blankId.size());
  }

  void testModulesNotEnabledRefuseTheirFields() {
    const Json body =
        Json::object({{"subject", "A"},
                      {"company_id", "comp_9"},
                      {"related_to", Json::object({{"type", "deal"}, {"id", "deal_1"}})}});
    const FieldErrors errors =
        validationErrors(body, ResourceWrite::Create, {"companies", "deals"});
    CPPUNIT_ASSERT(messagesOf(errors, "company_id") ==
                   Messages{"The company_id field cannot be used: the companies module is not "
                            "enabled."});
    CPPUNIT_ASSERT(messagesOf(errors, "related_to.type") ==
                   Messages{"The related type deal is not available: the deals module is not "
                            "enabled."});
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, errors.size());
    // Another module off, or a type without a module: accepted.
    const Resource resource(tickets());
    CPPUNIT_ASSERT_NO_THROW(resource.validate(body, ResourceWrite::Create, {"contacts"}));
    const Json user = Json::object(
        {{"subject", "A"}, {"related_to", Json::object({{"type", "user"}, {"id", "usr_1"}})}});
    CPPUNIT_ASSERT_NO_THROW(
        resource.validate(user, ResourceWrite::Create, {"companies", "contacts", "deals"}));
    // A null is no value: it clears even while the module is off.
    const ResourceValues cleared =
        resource.validate(Json::object({{"company_id", nullptr}, {"related_to", nullptr}}),
                          ResourceWrite::Update, {"companies", "deals", "contacts"});
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, cleared.size());
  }

  void testRulesCheckJoinsTheSame422() {
    ResourceSpec spec = tickets();
    std::vector<ResourceWrite> calls;
    spec.rules.check = [&calls](rapport::Validator& v, ResourceWrite write) {
      calls.push_back(write);
      if (write == ResourceWrite::Update && v.present("priority")) {
        v.fail("priority", "Use the escalate route to change the priority.");
      }
    };
    const FieldErrors errors =
        validationErrors(Json::object({{"priority", "urgent"}, {"due_at", "soon"}}),
                         ResourceWrite::Update, {}, spec);
    CPPUNIT_ASSERT(messagesOf(errors, "priority") ==
                   (Messages{"The selected priority is invalid.",
                             "Use the escalate route to change the priority."}));
    CPPUNIT_ASSERT(messagesOf(errors, "due_at") ==
                   Messages{"The due_at is not a valid date-time."});
    // Its message alone is a 422 too; a create passes it.
    CPPUNIT_ASSERT(
        messagesOf(
            validationErrors(Json::object({{"priority", "high"}}), ResourceWrite::Update, {}, spec),
            "priority") == Messages{"Use the escalate route to change the priority."});
    const Resource resource(spec);
    CPPUNIT_ASSERT_NO_THROW(resource.validate(
        Json::object({{"subject", "A"}, {"priority", "high"}}), ResourceWrite::Create));
    CPPUNIT_ASSERT(calls ==
                   (std::vector<ResourceWrite>{ResourceWrite::Update, ResourceWrite::Update,
                                               ResourceWrite::Create}));
  }

  void testColumnsAndJsonOfNewKinds() {
    const Resource resource(tickets());
    CPPUNIT_ASSERT_EQUAL(std::string("id, subject, code, email, priority, due_at, crm_company_id, "
                                     "score, done, tags, related_type, related_id, status, "
                                     "closed_at, created_at, updated_at"),
                         resource.columns());
    auto columns = std::make_shared<const std::vector<std::string>>(std::vector<std::string>{
        "id", "subject", "code", "email", "priority", "due_at", "crm_company_id", "score", "done",
        "tags", "related_type", "related_id", "status", "closed_at", "created_at", "updated_at"});
    const rapport::Row full(
        columns, {"tick_1", "Printer", "T-1", "a@b.io", "high", kMarch1 + 250000, "comp_9", 3, 1,
                  "[\"VIP\",\"Gold\"]", "deal", "deal_1", "closed", kMarch1, 1700000000000000LL,
                  1700000000500000LL});
    const Json expected =
        Json::object({{"id", "tick_1"},
                      {"subject", "Printer"},
                      {"code", "T-1"},
                      {"email", "a@b.io"},
                      {"priority", "high"},
                      {"due_at", "2024-03-01T10:00:00.250000Z"},
                      {"company_id", "comp_9"},
                      {"score", 3},
                      {"done", true},
                      {"tags", Json(Json::Array{"VIP", "Gold"})},
                      {"related_to", Json::object({{"type", "deal"}, {"id", "deal_1"}})},
                      {"status", "closed"},
                      {"closed_at", "2024-03-01T10:00:00.000000Z"},
                      {"created_at", "2023-11-14T22:13:20.000000Z"},
                      {"updated_at", "2023-11-14T22:13:20.500000Z"}});
    CPPUNIT_ASSERT_EQUAL(expected.dump(), resource.toJson(full).dump());
    // PostgreSQL reads a boolean as a boolean; the unset kinds read as null
    // and tags as [].
    const rapport::Row bare(
        columns, {"tick_2", "A", nullptr, nullptr, "low", nullptr, nullptr, nullptr, false, "[]",
                  nullptr, nullptr, "open", nullptr, 1700000000000000LL, 1700000000000000LL});
    const Json json = resource.toJson(bare);
    CPPUNIT_ASSERT_EQUAL(std::string("false"), json["done"].dump());
    CPPUNIT_ASSERT_EQUAL(std::string("[]"), json["tags"].dump());
    for (const char* name : {"due_at", "company_id", "related_to", "closed_at"}) {
      CPPUNIT_ASSERT_MESSAGE(name, json[name].isNull());
    }
  }

  void testWhereTagFilter() {
    const Resource resource(tickets());
    const rapport::WhereClause sqlite =
        resource.where(query({{"tag", " VIP "}}), Dialect::SQLite, "comp_1");
    CPPUNIT_ASSERT_EQUAL(std::string("+company_id = ? AND id IN (SELECT ticket_id FROM "
                                     "ticket_tags WHERE company_id = ? AND tag_lower = ?)"),
                         sqlite.sql());
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, sqlite.params().size());
    CPPUNIT_ASSERT_EQUAL(std::string("comp_1"), sqlite.params().at(1).asString());
    CPPUNIT_ASSERT_EQUAL(std::string("vip"), sqlite.params().at(2).asString());
    // Alone, the tag's counts table gives the total.
    CPPUNIT_ASSERT(sqlite.soleSet() != nullptr);
    CPPUNIT_ASSERT_EQUAL(std::string("ticket_tag_counts"), sqlite.soleSet()->countsTable);
    const rapport::WhereClause pg =
        resource.where(query({{"tag", "VIP"}}), Dialect::PostgreSQL, "comp_1");
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND id IN (SELECT ticket_id FROM ticket_tags "
                                     "WHERE company_id = ? AND tag_lower = ?)"),
                         pg.sql());
    // A blank tag is no filter; a resource without tags has no ?tag=.
    CPPUNIT_ASSERT(!resource.where(query({{"tag", " "}}), Dialect::SQLite, "c").filtered());
    ResourceSpec untagged = tickets();
    untagged.fields.erase(untagged.fields.begin() + 8);
    CPPUNIT_ASSERT(
        !Resource(untagged).where(query({{"tag", "VIP"}}), Dialect::SQLite, "c").filtered());
  }

  void testWhereNewFilters() {
    const Resource resource(tickets());
    const rapport::WhereClause where = resource.where(query({{"email", " Sales@Example.COM "},
                                                             {"priority", "high"},
                                                             {"company_id", "comp_9"},
                                                             {"due_at", "2024-03-01T10:00:00Z"},
                                                             {"score", "3"}}),
                                                      Dialect::PostgreSQL, "comp_1");
    // In declaration order; due_at and score are not filterable. The
    // any-case filter is served by the lower(email) index.
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND lower(email) = lower(?) AND "
                                     "priority = ? AND crm_company_id = ?"),
                         where.sql());
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, where.params().size());
    CPPUNIT_ASSERT_EQUAL(std::string("sales@example.com"), where.params().at(1).asString());
    CPPUNIT_ASSERT_EQUAL(std::string("high"), where.params().at(2).asString());
    CPPUNIT_ASSERT_EQUAL(std::string("comp_9"), where.params().at(3).asString());
    // A Text field in any case keeps the value's case (lower() on both sides).
    ResourceSpec spec = tickets();
    fieldOf(spec, "subject").filterable = true;
    fieldOf(spec, "subject").anyCase = true;
    const rapport::WhereClause text =
        Resource(spec).where(query({{"subject", "Printer"}}), Dialect::SQLite, "comp_1");
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND lower(subject) = lower(?)"), text.sql());
    CPPUNIT_ASSERT_EQUAL(std::string("Printer"), text.params().at(1).asString());
  }

  void testWhereRefusals() {
    const FieldErrors errors = errorsOf([] {
      Resource(tickets()).where(query({{"priority", "urgent"}, {"company_id", "comp_9"}}),
                                Dialect::SQLite, "comp_1", {"companies"});
    });
    CPPUNIT_ASSERT(messagesOf(errors, "priority") == Messages{"The selected priority is invalid."});
    CPPUNIT_ASSERT(messagesOf(errors, "company_id") ==
                   Messages{"The company_id field cannot be used: the companies module is not "
                            "enabled."});
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, errors.size());
    // Enum values compare exactly.
    CPPUNIT_ASSERT(
        messagesOf(
            errorsOf([] {
              Resource(tickets()).where(query({{"priority", "HIGH"}}), Dialect::SQLite, "comp_1");
            }),
            "priority") == Messages{"The selected priority is invalid."});
  }

  void testListFiltersRunAfterTheFieldsAndJoinThe422() {
    ResourceSpec spec = tickets();
    spec.rules.listFilters = [](const Request& request, rapport::WhereClause& where,
                                FieldErrors& errors) {
      const auto from = request.queryParam("due_from");
      if (!from) return;
      if (*from == "bad") {
        errors["due_from"].push_back("The due_from is not a valid date-time.");
      } else {
        where.add("due_at >= ?", {kMarch1});
      }
    };
    const rapport::WhereClause where = Resource(spec).where(
        query({{"due_from", "2024-03-01T10:00:00Z"}, {"priority", "low"}}), Dialect::SQLite, "c");
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND priority = ? AND due_at >= ?"),
                         where.sql());
    CPPUNIT_ASSERT_EQUAL(kMarch1, where.params().at(2).asInt());
    const FieldErrors errors = errorsOf([&] {
      Resource(spec).where(query({{"due_from", "bad"}, {"priority", "mid"}}), Dialect::SQLite, "c");
    });
    CPPUNIT_ASSERT(messagesOf(errors, "due_from") ==
                   Messages{"The due_from is not a valid date-time."});
    CPPUNIT_ASSERT(messagesOf(errors, "priority") == Messages{"The selected priority is invalid."});
  }

  void testDateTimeFilterReadsMicroseconds() {
    // A filterable DateTime compares its BIGINT column with the value read
    // as the body reads it, not with the query's text.
    ResourceSpec spec = tickets();
    fieldOf(spec, "due_at").filterable = true;
    const rapport::WhereClause where = Resource(spec).where(
        query({{"due_at", "2024-03-01T12:00:00+02:00"}}), Dialect::PostgreSQL, "c");
    CPPUNIT_ASSERT_EQUAL(std::string("company_id = ? AND due_at = ?"), where.sql());
    CPPUNIT_ASSERT(std::holds_alternative<std::int64_t>(where.params().at(1).variant()));
    CPPUNIT_ASSERT_EQUAL(kMarch1, where.params().at(1).asInt());
    CPPUNIT_ASSERT(
        messagesOf(errorsOf([&] {
                     Resource(spec).where(query({{"due_at", "tomorrow"}}), Dialect::SQLite, "c");
                   }),
                   "due_at") == Messages{"The due_at is not a valid date-time."});
  }

  void testTagsAndRelatedAreNotFilterable() {
    // ?<name>= compares one column with the text: for a Related field that
    // column does not exist (its columns are related_type and related_id),
    // and a Tags column holds JSON; ?tag= and the query language filter them.
    for (const std::string name : {"tags", "related_to"}) {
      CPPUNIT_ASSERT_EQUAL(refused("the field '" + name + "' cannot be filterable"),
                           refusal([&](ResourceSpec& s) { fieldOf(s, name).filterable = true; }));
      // Nor take a default: a Related one would go to both of its columns.
      CPPUNIT_ASSERT_EQUAL(
          refused("the field '" + name + "' takes no default"),
          refusal([&](ResourceSpec& s) { fieldOf(s, name).defaultValue = rapport::Json("x"); }));
    }
  }

  void testMigrationOnEachEngine() {
    const auto migrations = Resource(tickets()).migrations();
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, migrations.size());  // the count slots', the search's
    const rapport::Migration* migration = &migrations.front();
    CPPUNIT_ASSERT_EQUAL(std::string("0003_tickets"), migration->id);
    CPPUNIT_ASSERT(migration->replaces ==
                   (std::vector<std::string>{"0001_tickets", "0002_ticket_listing"}));
    // The table's part, then the listing tables (counts and tags) as
    // listing_tables.h writes them.
    const rapport::Migration listing = rapport::listingTablesMigration(
        {.records = "tickets", .recordColumn = "ticket_id", .tags = true}, "0003_tickets");
    CPPUNIT_ASSERT_EQUAL(kSqliteTable + listing.sqlite, migration->sqlite);
    CPPUNIT_ASSERT_EQUAL(kPostgresqlTable + listing.postgresql, migration->postgresql);
    CPPUNIT_ASSERT(listing.sqlite.find("ticket_tags") != std::string::npos);
    CPPUNIT_ASSERT(listing.postgresql.find("ticket_counts") != std::string::npos);
    // Since 10.1: then the count slots chosen among the free ones, its id
    // the table's extended (it sorts right after it).
    const rapport::Migration slots = rapport::listingCountSlotsMigration(
        {.records = "tickets", .recordColumn = "ticket_id", .tags = true},
        "0003_tickets_count_slots");
    CPPUNIT_ASSERT_EQUAL(std::string("0003_tickets_count_slots"), migrations[1].id);
    CPPUNIT_ASSERT(migrations[1].replaces.empty());
    CPPUNIT_ASSERT_EQUAL(slots.sqlite, migrations[1].sqlite);
    CPPUNIT_ASSERT_EQUAL(slots.postgresql, migrations[1].postgresql);
    CPPUNIT_ASSERT(slots.postgresql.find("ticket_tag_counts_track()") != std::string::npos);
  }

  // SQLite's search index per write batch (host migration 0017): a
  // follow-up of the table's migration replaces its three search triggers
  // by triggers that note the changed rows in search_queue (the first
  // change of a row in a batch: what the index holds). PostgreSQL: a
  // comment. The table's own migration is unchanged (checksummed).
  void testSearchQueueFollowUp() {
    const auto migrations = Resource(tickets()).migrations();
    CPPUNIT_ASSERT_EQUAL(std::size_t{3}, migrations.size());  // after the count slots'
    const rapport::Migration& followUp = migrations[2];
    CPPUNIT_ASSERT_EQUAL(std::string("0003_tickets_search_queue"), followUp.id);
    CPPUNIT_ASSERT(followUp.replaces.empty());
    const std::string header =
        "-- Generated by rapport::Resource for tickets: the search index written once per "
        "write batch.\n";
    CPPUNIT_ASSERT_EQUAL(header +
                             "DROP TRIGGER tickets_search_insert;\n"
                             "DROP TRIGGER tickets_search_delete;\n"
                             "DROP TRIGGER tickets_search_update;\n"
                             "CREATE TRIGGER tickets_search_insert AFTER INSERT ON tickets BEGIN\n"
                             "  INSERT OR IGNORE INTO search_queue (tbl, rid, old_text, indexed)\n"
                             "    VALUES ('tickets', new.seq, NULL, 0);\n"
                             "END;\n"
                             "CREATE TRIGGER tickets_search_delete AFTER DELETE ON tickets BEGIN\n"
                             "  INSERT OR IGNORE INTO search_queue (tbl, rid, old_text, indexed)\n"
                             "    VALUES ('tickets', old.seq, old.search_text, 1);\n"
                             "END;\n"
                             "CREATE TRIGGER tickets_search_update AFTER UPDATE OF subject, code "
                             "ON tickets BEGIN\n"
                             "  INSERT OR IGNORE INTO search_queue (tbl, rid, old_text, indexed)\n"
                             "    VALUES ('tickets', old.seq, old.search_text, 1);\n"
                             "END;\n",
                         followUp.sqlite);
    CPPUNIT_ASSERT_EQUAL(header + "-- SQLite only: PostgreSQL's GIN index is kept by PostgreSQL.\n",
                         followUp.postgresql);
    // The table's migration still creates the row-by-row triggers it always
    // did (an applied migration's text never changes).
    CPPUNIT_ASSERT(migrations[0].sqlite.find("INSERT INTO tickets_search (rowid, search_text) "
                                             "VALUES (new.seq, new.search_text);") !=
                   std::string::npos);
  }

  void testMigrationWithoutTagsOrSearch() {
    ResourceSpec spec = tickets();
    spec.fields.erase(spec.fields.begin() + 8);  // tags
    for (auto& field : spec.fields) field.searchable = false;
    fieldOf(spec, "code").unique = false;
    fieldOf(spec, "email").indexed = false;  // only the any-case index
    fieldOf(spec, "related_to").indexed = false;
    fieldOf(spec, "done").sortable = true;  // not null: its column
    spec.storage.replaces = {};
    const auto migrations = Resource(spec).migrations();
    CPPUNIT_ASSERT_EQUAL(std::size_t{2}, migrations.size());
    CPPUNIT_ASSERT(migrations.back().postgresql.find("ticket_tag_counts") == std::string::npos);
    const rapport::Migration* migration = &migrations.front();
    CPPUNIT_ASSERT(migration->replaces.empty());
    const rapport::Migration listing = rapport::listingTablesMigration(
        {.records = "tickets", .recordColumn = "ticket_id", .tags = false}, "0003_tickets");
    CPPUNIT_ASSERT(listing.sqlite.find("ticket_tags") == std::string::npos);
    const std::string indexes =
        "CREATE INDEX tickets_created ON tickets (company_id, created_at, id);\n"
        "CREATE INDEX tickets_updated ON tickets (company_id, updated_at, id);\n"
        "CREATE INDEX tickets_subject ON tickets (company_id, lower(subject), id);\n"
        "CREATE INDEX tickets_email ON tickets (company_id, lower(email), created_at, id);\n"
        "CREATE INDEX tickets_priority ON tickets (company_id, priority, created_at, id);\n"
        "CREATE INDEX tickets_due ON tickets (company_id, coalesce(due_at, -1), id);\n"
        "CREATE INDEX tickets_crm_company ON tickets (company_id, crm_company_id, created_at, "
        "id);\n"
        "CREATE INDEX tickets_score ON tickets (company_id, coalesce(score, 0), id);\n"
        "CREATE INDEX tickets_done ON tickets (company_id, done, id);\n";
    const std::string header =
        "-- Generated by rapport::Resource for tickets (rapport/resource.h, \"The table\").\n";
    const auto columns = [](const std::string& boolean) {
      return "  company_id TEXT NOT NULL,\n"
             "  subject TEXT NOT NULL,\n"
             "  code TEXT,\n"
             "  email TEXT,\n"
             "  priority TEXT NOT NULL,\n"
             "  due_at BIGINT,\n"
             "  crm_company_id TEXT,\n"
             "  score BIGINT,\n"
             "  done " +
             boolean +
             " NOT NULL,\n"
             "  related_type TEXT,\n"
             "  related_id TEXT,\n"
             "  status TEXT NOT NULL,\n"
             "  closed_at BIGINT,\n"
             "  created_at BIGINT NOT NULL,\n"
             "  updated_at BIGINT NOT NULL\n"
             ");\n";
    };
    // No search: no search_text, no FTS5 table, no pg_trgm.
    CPPUNIT_ASSERT_EQUAL(header +
                             "CREATE TABLE tickets (\n  seq INTEGER PRIMARY KEY,\n  id TEXT NOT "
                             "NULL UNIQUE,\n" +
                             columns("INTEGER") + indexes + listing.sqlite,
                         migration->sqlite);
    CPPUNIT_ASSERT_EQUAL(header + "CREATE TABLE tickets (\n  id TEXT PRIMARY KEY,\n" +
                             columns("BOOLEAN") + indexes + listing.postgresql,
                         migration->postgresql);
  }

  void testNoMigrationWithoutStorage() {
    ResourceSpec deals = tickets();
    deals.storage.migration = "";  // the module's own table
    CPPUNIT_ASSERT(Resource(deals).migrations().empty());
    ResourceSpec none = tickets();
    none.fields.erase(none.fields.begin() + 8);  // tags
    none.storage = {};
    CPPUNIT_ASSERT(Resource(none).migrations().empty());
  }

  // SDK 9.0: a resource that takes custom fields gets the column of their
  // stored JSON by a migration of its own, on the engine's table (after it)
  // or on the module's (alone), and selects it with every read.
  void testCustomFieldsAddTheirColumn() {
    const std::string alter =
        "ALTER TABLE tickets ADD COLUMN custom_fields TEXT NOT NULL DEFAULT '{}';\n";
    ResourceSpec spec = tickets();
    spec.customFields = {.migration = "0009_tickets_custom_fields"};
    const auto migrations = Resource(spec).migrations();
    CPPUNIT_ASSERT_EQUAL(std::size_t{4}, migrations.size());  // the table's, slots, search's, this
    CPPUNIT_ASSERT_EQUAL(std::string("0009_tickets_custom_fields"), migrations.back().id);
    for (const std::string& sql : {migrations.back().sqlite, migrations.back().postgresql}) {
      CPPUNIT_ASSERT_MESSAGE(sql, sql.ends_with(alter));
    }
    spec.storage.migration = "";  // the module's own table
    CPPUNIT_ASSERT_EQUAL(std::size_t{1}, Resource(spec).migrations().size());
    CPPUNIT_ASSERT(Resource(spec).columns().ends_with(", custom_fields"));
    CPPUNIT_ASSERT(!Resource(tickets()).columns().ends_with(", custom_fields"));
  }

  // A field of a later release: its own migration, after the table's, which
  // stays as it was; a field never null takes its default on the rows there.
  void testFieldAddedLater() {
    ResourceSpec spec = tickets();
    const std::string first = Resource(spec).migrations().front().sqlite;
    spec.fields.push_back(
        {.name = "color", .maxLength = 20, .sortable = true, .since = "0004_tickets_color"});
    spec.fields.push_back({.name = "urgent",
                           .kind = FieldKind::Boolean,
                           .defaultValue = false,
                           .filterable = true,
                           .since = "0004_tickets_color"});
    spec.fields.push_back({.name = "label",
                           .kind = FieldKind::Enum,
                           .required = true,
                           .defaultValue = "it's",
                           .options = {"it's", "b"},
                           .since = "0005_tickets_label"});
    const auto migrations = Resource(spec).migrations();
    CPPUNIT_ASSERT_EQUAL(std::size_t{5}, migrations.size());  // and the slots' and search's
    CPPUNIT_ASSERT_EQUAL(first, migrations[0].sqlite);
    CPPUNIT_ASSERT_EQUAL(std::string("0003_tickets_count_slots"), migrations[3].id);
    CPPUNIT_ASSERT_EQUAL(std::string("0004_tickets_color"), migrations[1].id);
    CPPUNIT_ASSERT(migrations[1].replaces.empty());
    const std::string header = "-- Generated by rapport::Resource for tickets.\n";
    CPPUNIT_ASSERT_EQUAL(
        header +
            "ALTER TABLE tickets ADD COLUMN color TEXT;\n"
            "CREATE INDEX tickets_color ON tickets (company_id, coalesce(lower(color), ''), "
            "id);\n"
            "ALTER TABLE tickets ADD COLUMN urgent INTEGER NOT NULL DEFAULT 0;\n"
            "CREATE INDEX tickets_urgent ON tickets (company_id, urgent, created_at, id);\n",
        migrations[1].sqlite);
    CPPUNIT_ASSERT(migrations[1].postgresql.find(
                       "ALTER TABLE tickets ADD COLUMN urgent BOOLEAN NOT NULL DEFAULT FALSE;") !=
                   std::string::npos);
    CPPUNIT_ASSERT_EQUAL(std::string("0005_tickets_label"), migrations[2].id);
    CPPUNIT_ASSERT_EQUAL(
        header + "ALTER TABLE tickets ADD COLUMN label TEXT NOT NULL DEFAULT 'it''s';\n",
        migrations[2].sqlite);
    // The mistakes a later field can make.
    const auto refusedLater = [](ResourceField field) {
      ResourceSpec s = tickets();
      s.fields.push_back(std::move(field));
      try {
        Resource{s};
      } catch (const std::invalid_argument& e) {
        return std::string(e.what());
      }
      return std::string("accepted");
    };
    CPPUNIT_ASSERT_EQUAL(
        std::string("resource declaration: the field 'x' is added by a migration after "
                    "storage.migration"),
        refusedLater({.name = "x", .since = "0001_early"}));
    CPPUNIT_ASSERT_EQUAL(
        std::string("resource declaration: the field 'x' cannot be added later (tags, search)"),
        refusedLater({.name = "x", .searchable = true, .since = "0009_x"}));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: the field 'x' is added later: a "
                                     "required one needs a default"),
                         refusedLater({.name = "x", .required = true, .since = "0009_x"}));
    CPPUNIT_ASSERT_EQUAL(std::string("resource declaration: the field 'x' is added by the "
                                     "engine's count slots migration (0003_tickets_count_slots)"),
                         refusedLater({.name = "x", .since = "0003_tickets_count_slots"}));
  }

  // A unique field that also sorts has both indexes (the sort's named _sort).
  void testUniqueSortableFieldHasASortIndex() {
    ResourceSpec spec = tickets();
    fieldOf(spec, "code").sortable = true;
    const std::string sql = Resource(spec).migrations().front().sqlite;
    CPPUNIT_ASSERT(sql.find("CREATE UNIQUE INDEX tickets_code ON tickets (company_id, code);") !=
                   std::string::npos);
    CPPUNIT_ASSERT_MESSAGE(sql, sql.find("CREATE INDEX tickets_code_sort ON tickets (company_id, "
                                         "coalesce(lower(code), ''), id);") != std::string::npos);
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(RecordEngineTest);
