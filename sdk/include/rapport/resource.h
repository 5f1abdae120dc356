// The record engine: a record module as a declaration (since 8.0 the CRM
// modules are one each: modules/contacts/src/ContactsResource.cpp is the
// model, modules/deals/src/DealsResource.cpp uses every part).
//
//   rapport::Resource({.path = "/crm/products", .table = "products",
//                      .recordType = "product", .idPrefix = "prod_",
//                      .eventPrefix = "crm.product", .noun = "Product",
//                      .fields = {{.name = "name", .required = true, .searchable = true},
//                                 {.name = "price", .kind = rapport::FieldKind::Money,
//                                  .defaultValue = 0}},
//                      .storage = {.migration = "0001_products",
//                                  .recordColumn = "product_id"}})
//       .install(host, registry);  // in Module::setup
//
// serves, for one table of one tenant's records (the same messages,
// statuses and envelopes for every record type):
//   POST   <path>        201 "<Noun> created.", the record; 422 on invalid
//                        fields; 404 for a reference to nothing; 409 on a
//                        duplicate unique field
//   GET    <path>        the list: ?page, ?per_page, ?search (when a field is
//                        searchable), ?tag (with a Tags field),
//                        ?<field>=<value> for each filterable field, the
//                        rules' own parameters, and the query language of
//                        record_query.h (filter, sort on up to 3 of any
//                        fields, fields, include, limit/cursor/count; newest
//                        first by default)
//   POST   <path>/search the same query language in a JSON body
//   GET    <path>/{id}   the record; 404 "<Noun> not found." (also for another
//                        company's record)
//   PATCH  <path>/{id}   only the sent fields change; 200 "<Noun> updated."; a
//                        PATCH that changes nothing writes nothing and emits
//                        nothing
//   DELETE <path>/{id}   200 "<Noun> deleted.", data {id}
//   POST   <path>/batch  up to 100 creates and updates in one call (batch.h),
//                        and upserts by the unique field when there is one
//   <action.method> <path>/{id}<action.path>   each action (ResourceAction)
//   GET    <reference.subList>  each reference's sub-list (ResourceReference)
//   GET/POST <path>/fields, GET/PATCH/DELETE <path>/fields/{key}: each
//                        company's custom fields, when the resource takes
//                        them (customFields, custom_fields.h); its records
//                        then carry custom_fields
// in one transaction each. It describes them for the API document
// (api_doc.h), declares the event types <eventPrefix>.created, .updated
// (data: the record as GET returns it), .deleted (data: {id}) and the
// actions', registers the record type `recordType` in the record directory
// (records.h: exists, fetch, path, query), so other modules can reference,
// guard, augment and unlink it, and unlinks its own references to deleted
// records. Deleting a record runs the directory's guards and reactions in
// the same transaction.
//
// The record as JSON: {"id", each field in declaration order, "created_at",
// "updated_at"}. Text kinds read as a string or null, integers and money as
// numbers, booleans as true/false, DateTime as the host's timestamps, Tags
// as an array, Related as {"type", "id"} or null.
//
// The table, which the engine writes with storage.migration (a module that
// writes its own follows the same rules) on db.h's and query.h's
// conventions:
//   id TEXT (PostgreSQL: PRIMARY KEY; SQLite: NOT NULL UNIQUE beside
//   `seq INTEGER PRIMARY KEY`), company_id TEXT NOT NULL, the fields'
//   columns (named `column`, by default the field's name; TEXT for the text
//   kinds, Date, Enum and Reference; BIGINT for Integer, Money and
//   DateTime; BOOLEAN on PostgreSQL and INTEGER on SQLite for Boolean; Tags
//   TEXT NOT NULL DEFAULT '[]'; Related two TEXT columns <column>_type and
//   <column>_id; NOT NULL when the field is required or has a default),
//   created_at and updated_at BIGINT NOT NULL;
//   - index names are "<table>_<column>", the column without a trailing
//     "_id" or "_at" (contacts_crm_company, activities_scheduled);
//   - a unique field: CREATE UNIQUE INDEX ... (company_id, <column>);
//   - searchable fields: the generated column search_text (the searchable
//     fields, lower-cased, joined by a line break, a null one as ''), with
//     the SQLite FTS5 table "<table>_search" (trigram, kept by triggers) or
//     the PostgreSQL GIN index "<table>_search" (pg_trgm);
//   - the order: indexes (company_id, created_at, id), (company_id,
//     updated_at, id), and (company_id, <sortExpression(field)>, id) for
//     each sortable field; (company_id, <column>, created_at, id) for each
//     filterable or indexed one (named "..._eq" beside an anyCase filter's
//     (company_id, lower(<column>), created_at, id));
//   - the listing tables of listing_tables.h named from
//     storage.recordColumn.
//
// ABI: ResourceField and ResourceSpec are constructed by modules: a change of
// their members is an ABI major change (abi.h). Resource holds only shared
// pointers to its declaration and its query language.
//
// Threading: a Resource is immutable once constructed; its handlers run
// concurrently on the host's threads and keep no per-request state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rapport/db.h"
#include "rapport/export.h"
#include "rapport/http.h"
#include "rapport/json.h"
#include "rapport/module.h"
#include "rapport/pagination.h"
#include "rapport/query.h"
#include "rapport/record_query.h"
#include "rapport/roles.h"
#include "rapport/validation.h"
#include "rapport/where.h"

namespace rapport {

// What a field holds, and which rule (validation.h) reads it.
enum class FieldKind {
  Text,      // a string of at most maxLength characters, trimmed; blank reads as null
  Email,     // Validator::email: lower-cased, at most 254 characters
  Url,       // Validator::url: http or https
  Integer,   // Validator::integer with min and max
  Money,     // integer cents, non-negative (decisions §1), at most max when given
  Boolean,   // true or false
  Date,      // "YYYY-MM-DD", a real calendar date
  Currency,  // a 3-letter upper-case code ("USD"), as deals' currency
  // Since 8.0:
  DateTime,   // ISO-8601 date-time (Validator::timestamp); stored as BIGINT
              // microseconds, answered as the host's timestamps
  Enum,       // one of `options` ("The selected <name> is invalid.")
  Tags,       // up to 50 tags (Validator::tags); stored as a JSON array in its
              // column and one row per tag in the listing tag table; ?tag=
              // and filter {"tags": {"contains": ...}}; a null sent clears
  Reference,  // the id of a record of references[0].recordType (below)
  Related,    // {"type", "id"} or null: one record of any of references'
              // types; two columns, <column>_type and <column>_id
};

// Who may write a field.
enum class FieldAccess {
  Writable,    // create and PATCH
  CreateOnly,  // set on create; a PATCH may send the current value (null
               // included), another answers 422 changeMessage, by default
               // "The <name> cannot be changed after creation."
  ReadOnly,    // written only by the module (rules, actions); ignored in bodies
};

// Where a Reference or Related field points (since 8.0).
struct ResourceReference {
  // The record type in the directory (records.h): "company".
  std::string recordType = "";
  // The 404 when the id is not such a record of the company: "Company not found."
  std::string notFound = "";
  // The module that owns the type, when it is optional: while it is not
  // enabled the field refuses every value (422 "The <name> field cannot be
  // used: the <module> module is not enabled."; for a Related type "The
  // related type <type> is not available: the <module> module is not
  // enabled."), its filter refuses too, and the sub-list is not served.
  // Empty: always there (a host type such as "user").
  std::string module = "";
  // Optional: the referenced record's sub-list of these records,
  // "/crm/companies/{id}/contacts": the list's parameters, limited to the
  // records pointing at {id}; 404 parentNotFound when {id} is not such a
  // record.
  std::string subList = "";
  std::string parentNotFound = "";  // empty: notFound
  // A deleted referenced record leaves these records pointing at nothing
  // (the field null, updated_at now) in the delete's transaction, without
  // events. False: the module decides (a guard, say).
  bool unlinkOnDelete = true;
};

// One field of a resource: its API name, its column and rules.
struct ResourceField {
  // Lower case, digits and '_'; not id, company_id, created_at, updated_at,
  // search_text or seq.
  std::string name = "";
  FieldKind kind = FieldKind::Text;
  // Required on create ("The name field is required."); a PATCH may leave it
  // out but never clear it. A required field needs no default.
  bool required = false;
  // Text only: the longest value, in characters.
  std::size_t maxLength = 255;
  // Integer only (Money: max only): the smallest and largest values.
  std::optional<std::int64_t> min = std::nullopt;
  std::optional<std::int64_t> max = std::nullopt;
  // Stored when the field is absent on create, or sent as null: the column
  // is then never null. Its JSON type must match the kind (a string, an
  // integer, true or false). Without one, an absent field is null and a sent
  // null clears it.
  std::optional<Json> defaultValue = std::nullopt;
  // Unique per company (the unique index refuses a duplicate): the write
  // answers 409 with uniqueMessage, by default "A <noun> with this <name>
  // already exists.". At most one field of a resource is unique; the batch
  // route upserts by it.
  bool unique = false;
  std::string uniqueMessage = "";
  // Part of search_text: ?search= matches it as a substring, in any case.
  bool searchable = false;
  // ?<name>=<value> keeps the records whose field equals the value (Boolean:
  // "true" or "false"; Integer and Money: an integer; DateTime: an ISO-8601
  // instant; Enum: one of options; text kinds: exactly, Email lower-cased,
  // or in any case with anyCase). A blank value is ignored; a malformed one
  // is a 422. Not for Tags (?tag= is theirs) or Related (rules.listFilters).
  bool filterable = false;
  // An index serves ?sort=<name> (every field but Tags sorts, indexed or
  // not, record_query.h): (company_id, sortExpression, id). A sortable
  // Boolean needs a default or required; a nullable sortable Integer needs
  // min >= 0 (a null sorts as -1).
  bool sortable = false;
  // --- Since 8.0 ---
  // The column, when it is not the field's name ("crm_company_id" for
  // company_id); for Related the prefix of its two columns.
  std::string column = "";
  // The ?<name>= filter compares in any case (its index is on lower(column)).
  bool anyCase = false;
  // An index (company_id, column, created_at, id) for the exact comparisons
  // of the query language and the one-hop paths through this field, beside
  // the any-case one. Implied by a filterable field without anyCase.
  bool indexed = false;
  // Enum: the values allowed, in the API document's order.
  std::vector<std::string> options = {};
  // Reference: exactly one; Related: one per type it may point to.
  std::vector<ResourceReference> references = {};
  FieldAccess access = FieldAccess::Writable;
  // CreateOnly: the 422 for a PATCH that changes it.
  std::string changeMessage = "";
  // Overrides sortExpression(field) for the sort and its index: where unset
  // values sort is the module's choice ("coalesce(expected_close_date,
  // '9999-12-32')" puts undated deals last).
  std::string sortExpression = "";
  // The field's sentence in the API document.
  std::string description = "";
  // With the engine's storage: the id of the migration that adds the field
  // to a table created without it ("0002_products_color"), after
  // storage.migration. The engine writes it (ALTER TABLE ... ADD COLUMN and
  // the field's indexes); a field that is never null needs a default (the
  // rows already there take it). Not for Tags or searchable fields, whose
  // tables and search index are the first migration's. Empty: the field is
  // in the table from storage.migration on.
  std::string since = "";
};

// The tables of a resource (since 8.0): the engine's migration, or the
// module's own with the engine's names for the listing tables.
struct ResourceStorage {
  // The id of the migration the engine writes, "0008_crm_companies": the
  // table, its indexes and its search index from the fields, on both
  // engines (the rules are under "The table" at the top), followed by the
  // listing tables of listing_tables.h (the count, and the tags when a field
  // is Tags). Its text is a function of the declaration, and an applied
  // migration never changes: a field added later says `since`. Empty: the
  // module writes its table in its own migrations (a table older than the
  // engine's rules; deals).
  std::string migration = "";
  // The module's hand-written migrations the generated one stands for
  // (Migration::replaces, db.h): the upgrade path of a module moving to it.
  std::vector<std::string> replaces = {};
  // "<record>_id", the listing tables' names (listing_tables.h):
  // "crm_company_id" gives crm_company_counts, crm_company_tags and
  // crm_company_tag_counts, which lists and tags then use. Required with
  // `migration` or a Tags field; with a migration of its own, the module
  // registers listingTablesMigration itself.
  std::string recordColumn = "";
};

// Custom fields (custom_fields.h, since 9.0): each company's own fields on
// this record type.
struct ResourceCustomFields {
  // The id of the migration the engine writes to add the `custom_fields`
  // column (TEXT NOT NULL DEFAULT '{}') to the table:
  // "0009_contacts_custom_fields". Non-empty opts the resource in. It runs
  // after the table's own migration (storage.migration, or the module's).
  std::string migration = "";
};

// Which request a body is validated for.
enum class ResourceWrite { Create, Update };

// The values a validated body writes, column by column, in field order: on
// Create every field (an absent one as its default, or null); on Update only
// the fields sent (a sent null as the field's default, or null). Tags are
// written as their JSON text; a Related field as its two columns.
using ResourceValues = std::vector<std::pair<std::string, Value>>;

// The value `values` writes to `column`, or nullptr when it writes none.
RAPPORT_SDK_API const Value* findValue(const ResourceValues& values, const std::string& column);
// Writes `value` to `column`: replaces the column's value, or adds it.
RAPPORT_SDK_API void setValue(ResourceValues& values, const std::string& column, Value value);

// A write about to happen, as a module's rules see it (since 8.0).
struct ResourceChange {
  ResourceWrite write;
  const Json& body;        // the request's body
  const Json* current;     // the record as GET shows it (Update); nullptr on Create
  ResourceValues& values;  // the columns to write; rules may change or add them
};

// The rules that are truly a module's own, run by the engine (since 8.0).
// Each may throw rapport::Error (its status and envelope are the answer).
struct ResourceRules {
  // Beside the fields' rules, on the same Validator (its messages join the
  // same 422): "use the stage route to move a deal".
  std::function<void(Validator&, ResourceWrite)> check = nullptr;
  // In the write's transaction, after the references are checked and locked
  // and before the row is written: checks between fields and records ("the
  // stage belongs to the pipeline") and derived values.
  std::function<void(Tx&, ResourceChange&)> beforeWrite = nullptr;
  // The list's historic query parameters beyond the fields' own filters
  // (?scheduled_from=): add conditions, or messages to `errors` (one 422).
  std::function<void(const Request&, WhereClause&, FieldErrors&)> listFilters = nullptr;
  // The query parameters listFilters reads, for the API document:
  // {"scheduled_from", schema::timestamp("...")} (api_doc.h).
  std::vector<std::pair<std::string, Json>> listParameters = {};
};

// What an action did (since 8.0).
struct ActionOutcome {
  // The columns to write; empty with changed: only updated_at.
  ResourceValues values = {};
  // False: nothing to change (no write, no event; the answer is the record).
  bool changed = true;
  // Members added to the event's data beside the record ("previous_stage_id").
  Json eventExtras = Json::object();
};

// What an action sees (since 8.0).
struct ActionContext {
  const Request& request;
  const Json& current;  // the record as GET shows it, locked until the commit
  Tx& tx;
  std::int64_t now;  // the write's time: updated_at, and a completed_at set now
};

// A state change beside PATCH: POST <path>/{id}/win (since 8.0). The engine
// reads the record locked in its transaction (404 notFound), calls `apply`,
// writes the values with updated_at, emits `event` with the record (and the
// extras) and answers 200 `message` with the record.
struct ResourceAction {
  std::string method = "POST";
  std::string path = "";  // below the record: "/win" serves <path>/{id}/win
  // "crm.deal.won": declared by the engine with eventDescription ("A deal
  // was marked won."). An action may emit one of the resource's own three
  // (reopen emits <prefix>.updated); a description then replaces the
  // default one ("A deal was updated or reopened.").
  std::string event = "";
  std::string eventDescription = "";
  std::string message = "";      // "Deal won."
  std::string summary = "";      // the API document's summary
  std::string description = "";  // and its description
  Json body = Json();            // the body's schema (api_doc.h); null: none
  std::vector<int> errors = {};  // statuses beyond the usual ones (409)
  // The change; may throw rapport::Error (a 409 for a state it does not
  // apply to, a 422 for its body).
  std::function<ActionOutcome(const ActionContext&)> apply = nullptr;
};

// The whole resource: where it is served and what it stores.
struct ResourceSpec {
  std::string path = "";         // version-relative collection path: "/crm/products"
  std::string table = "";        // its table: "products"
  std::string recordType = "";   // in the record directory: "product"
  std::string idPrefix = "";     // ids are newId(idPrefix): "prod_"
  std::string eventPrefix = "";  // "crm.product": crm.product.created, .updated, .deleted
  // Capitalised, singular: "Product" makes "Product not found.", "Product
  // created.".
  std::string noun = "";
  std::vector<ResourceField> fields = {};
  // Roles allowed to create, change and delete; empty: every member of the
  // company. Reads are open to every member.
  std::vector<Role> writeRoles = {};
  // Optional: a counts table of the record table as query.h's selectPage
  // describes (company_id, slot, total, kept by triggers), so an unfiltered
  // list reads its total from a few rows. Empty: lists count their rows (or
  // storage's, when the engine writes the table).
  std::string countsTable = "";
  // --- Since 8.0 ---
  // The record in a sentence, singular and plural: "CRM company", "CRM
  // companies" (the API document's summaries, "A CRM company was created.").
  // Empty: the noun in lower case, and that plus "s".
  std::string title = "";
  std::string titlePlural = "";
  // The record's schema in the API document; empty: the noun.
  std::string schemaName = "";
  ResourceStorage storage = {};
  ResourceRules rules = {};
  std::vector<ResourceAction> actions = {};
  // Extra sentences of the API document: the create and the delete ("contacts
  // that referred to it are unlinked").
  std::string createDescription = "";
  std::string deleteDescription = "";
  // --- Since 9.0 ---
  ResourceCustomFields customFields = {};
  // --- Since 10.0 ---
  // The scope name API keys need (scopes.h): "<scope>:read" for the reads
  // (POST <path>/search included), "<scope>:write" for the writes, batch and
  // actions. Empty: the path's last segment ("/crm/products" -> "products").
  std::string scope = "";
};

// A resource built from its declaration. Cheap to copy (copies share the
// declaration). Everything but install() is pure and usable in unit tests.
class RAPPORT_SDK_API Resource {
 public:
  // Checks the declaration; a mistake in it (an empty path, a reserved or
  // duplicate field name, two unique fields, a default of the wrong type...)
  // throws std::invalid_argument naming it. Thrown from setup(), the host
  // refuses to start with the module's name and that message.
  explicit Resource(ResourceSpec spec);

  const ResourceSpec& spec() const;
  // Since 7.0. Its query language (record_query.h): every field filters and
  // sorts (by sortExpression), searchable ones narrow `contains` on the
  // search index; the list and POST <path>/search answer it.
  const RecordQuery& query() const;

  // Registers everything the declaration promises on `registry`: the
  // storage's migration (when the engine writes the table), the six routes,
  // the actions' routes, the sub-lists on referenced records, the event
  // types, the record type, the unlinking of references, the batch route and
  // the API document. Call it from Module::setup only. The handlers keep
  // `host` (valid from setup() to stop(), module.h) and a copy of this
  // resource. A reference whose module is not enabled
  // (ResourceReference::module) is off as that member says.
  void install(Host& host, Registry& registry) const;

  // Since 8.0: the migrations of `storage`: the table, its indexes, its
  // search index and listing tables, then one per field's `since`, in id
  // order; none when the module writes its table.
  std::vector<Migration> migrations() const;

  // The body's fields, read by each field's rule and the rules' check;
  // throws Error::validation (422, every field's messages at once) when any
  // breaks its rule. Unknown and read-only fields in the body are ignored.
  // `unavailable`: the modules not enabled (ResourceReference::module).
  ResourceValues validate(const Json& body, ResourceWrite write,
                          const std::set<std::string>& unavailable = {}) const;

  // "id, <columns...>, created_at, updated_at": what every read selects.
  std::string columns() const;

  // The record as GET returns it, from a row holding columns().
  Json toJson(const Row& row) const;

  // The list's WHERE clause from the request's ?search=, ?tag=, the fields'
  // filters and the rules' listFilters; throws Error::validation (422) for a
  // search over kMaxSearchLength characters or a malformed filter value.
  WhereClause where(const Request& request, Dialect dialect, const std::string& tenant,
                    const std::set<std::string>& unavailable = {}) const;

 private:
  std::shared_ptr<const ResourceSpec> spec_;
  std::shared_ptr<const RecordQuery> query_;
};

// The SQL a field orders by (and a sortable field's index holds): its own
// sortExpression when set; otherwise lower(<column>) for Text, Email, Url,
// Currency and Enum, the column itself for the other kinds; for a field that
// may be null (not required, no default) coalesce(lower(<column>), '') for
// those five, coalesce(<column>, '') for Date, Reference and the Related
// id, and coalesce(<column>, -1) for Integer, Money and DateTime, so that
// both engines put the nulls at the same end.
RAPPORT_SDK_API std::string sortExpression(const ResourceField& field);

}  // namespace rapport
