// `filter` operators on every kind of field (decisions §13, record_query.h's
// QueryKind), on contacts, CRM companies, deals and activities of the shared
// dataset (QueryDataset.h): text (eq, ne, in, nin exact; contains,
// starts_with and gt/lt without regard to case; a literal is eq), ids (eq,
// in, null), enums (eq, in, nin), numbers and money (ranges, bounds
// included), dates (YYYY-MM-DD ranges), date-times (instants compared across
// offsets, created_at with +02:00), tags (contains in any case, null).
#include <cppunit/extensions/HelperMacros.h>

#include "e2e/query/QueryDataset.h"

using namespace rapport::e2e;
using namespace rapport::e2e::query;

class QueryFilterTest : public QueryFixture {
  CPPUNIT_TEST_SUITE(QueryFilterTest);
  CPPUNIT_TEST(testTextEqualityIsExact);
  CPPUNIT_TEST(testTextNeAndNinMatchUnsetFields);
  CPPUNIT_TEST(testTextContainsAndStartsWithIgnoreCase);
  CPPUNIT_TEST(testContainsShortTermsAndFieldBoundaries);
  CPPUNIT_TEST(testTextRangesIgnoreCase);
  CPPUNIT_TEST(testTextOnCompanies);
  CPPUNIT_TEST(testIdsEqInAndNull);
  CPPUNIT_TEST(testDealStatusEnum);
  CPPUNIT_TEST(testActivityTypeAndStatusEnums);
  CPPUNIT_TEST(testEnumValueOutsideItsOptionsIs422);
  CPPUNIT_TEST(testMoneyRanges);
  CPPUNIT_TEST(testIntegerComparisons);
  CPPUNIT_TEST(testNumberNull);
  CPPUNIT_TEST(testDateRanges);
  CPPUNIT_TEST(testDateTimeComparesInstantsAcrossOffsets);
  CPPUNIT_TEST(testCreatedAtWithAnOffset);
  CPPUNIT_TEST(testTagsContainsInAnyCase);
  CPPUNIT_TEST(testTagsNull);
  CPPUNIT_TEST_SUITE_END();

 public:
  Ids contacts(const Json& filter) { return matching(*client_, token_, kContacts, filter); }
  Ids companies(const Json& filter) { return matching(*client_, token_, kCompanies, filter); }
  Ids deals(const Json& filter) { return matching(*client_, token_, kDeals, filter); }
  Ids activities(const Json& filter) { return matching(*client_, token_, kActivities, filter); }
  static Json op(const std::string& field, const std::string& name, Json value) {
    return Json::object({{field, Json::object({{name, std::move(value)}})}});
  }

  void testTextEqualityIsExact() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(Json::object({{"name", "bob stone"}})) == (Ids{d.bob}));
    CPPUNIT_ASSERT(contacts(op("name", "eq", "bob stone")) == (Ids{d.bob}));
    CPPUNIT_ASSERT(contacts(op("email", "eq", "carol@north.io")) == (Ids{d.carol}));
    CPPUNIT_ASSERT(
        contacts(op("email", "in", Json::Array{"carol@north.io", "fay@east.io", "nobody@x.io"})) ==
        (Ids{d.carol, d.fay}));
    CPPUNIT_ASSERT(contacts(op("email", "eq", "nobody@x.io")).empty());
    // docs/api-choices.md: in [] matches nothing, nin [] everything; a
    // literal null is {"null": true}.
    CPPUNIT_ASSERT(contacts(op("email", "in", Json::array())).empty());
    CPPUNIT_ASSERT(contacts(op("email", "nin", Json::array())) == d.contacts());
    CPPUNIT_ASSERT(contacts(Json::object({{"job_title", nullptr}})) == (Ids{d.bob, d.dan, d.fay}));
  }

  // record_query.h: ne and nin also match a record whose field is unset.
  void testTextNeAndNinMatchUnsetFields() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(op("job_title", "ne", "CEO")) ==
                   (Ids{d.bob, d.carol, d.dan, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(op("email", "nin", Json::Array{"alice@north.io", "bob@south.io"})) ==
                   (Ids{d.carol, d.dan, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(op("job_title", "in", Json::Array{"CEO", "cto"})) ==
                   (Ids{d.alice, d.carol}));
  }

  void testTextContainsAndStartsWithIgnoreCase() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(op("name", "contains", "STONE")) == (Ids{d.bob, d.carol}));
    CPPUNIT_ASSERT(contacts(op("name", "contains", "N Z")) == (Ids{d.erin}));
    CPPUNIT_ASSERT(contacts(op("email", "contains", "NORTH.io")) == (Ids{d.alice, d.carol}));
    CPPUNIT_ASSERT(contacts(op("name", "starts_with", "ca")) == (Ids{d.carol}));
    CPPUNIT_ASSERT(contacts(op("name", "starts_with", "B")) == (Ids{d.bob}));
    // starts_with is a prefix, not a substring.
    CPPUNIT_ASSERT(contacts(op("name", "starts_with", "stone")).empty());
    // Wildcards of LIKE are literal characters.
    CPPUNIT_ASSERT(contacts(op("name", "contains", "%")).empty());
    CPPUNIT_ASSERT(contacts(op("name", "starts_with", "_")).empty());
  }

  // contains on a searchable field may narrow on the search index first: a
  // term of one or two characters still matches, and a term found in another
  // field of the record (or across two) does not.
  void testContainsShortTermsAndFieldBoundaries() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(op("name", "contains", "Z")) == (Ids{d.erin}));
    CPPUNIT_ASSERT(contacts(op("email", "contains", "st")) == (Ids{d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(op("email", "contains", "walker")).empty());
    CPPUNIT_ASSERT(contacts(op("name", "contains", "north")).empty());
    CPPUNIT_ASSERT(contacts(op("name", "contains", "walker alice")).empty());
    CPPUNIT_ASSERT(contacts(op("email", "starts_with", "ALICE@")) == (Ids{d.alice}));
    CPPUNIT_ASSERT(deals(op("title", "contains", "ENGINE")) == (Ids{d.engine}));
    CPPUNIT_ASSERT(companies(op("name", "contains", "a")) == (Ids{d.acme, d.cask, d.dyna}));
  }

  // Text ranges compare without regard to case, as the sort orders.
  void testTextRangesIgnoreCase() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(Json::object({{"name", Json::object({{"gte", "c"}, {"lt", "E"}})}})) ==
                   (Ids{d.carol, d.dan}));
    CPPUNIT_ASSERT(contacts(op("name", "gt", "dan ode")) == (Ids{d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(op("name", "lte", "BOB STONE")) == (Ids{d.alice, d.bob}));
    // An unset field is never greater or smaller than a value.
    CPPUNIT_ASSERT(contacts(op("job_title", "gt", "a")) == (Ids{d.alice, d.carol, d.erin}));
  }

  void testTextOnCompanies() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(companies(Json::object({{"industry", "Retail"}})) == (Ids{d.acme}));
    CPPUNIT_ASSERT(companies(op("industry", "ne", "Retail")) == (Ids{d.bolt, d.cask, d.dyna}));
    CPPUNIT_ASSERT(companies(op("industry", "starts_with", "RET")) == (Ids{d.acme, d.dyna}));
    CPPUNIT_ASSERT(companies(op("industry", "contains", "food")) == (Ids{d.dyna}));
    CPPUNIT_ASSERT(companies(op("industry", "in", Json::Array{"Mining", "Retail"})) ==
                   (Ids{d.acme, d.bolt}));
    CPPUNIT_ASSERT(companies(op("industry", "nin", Json::Array{"Mining", "Retail"})) ==
                   (Ids{d.cask, d.dyna}));
    CPPUNIT_ASSERT(companies(op("industry", "lt", "n")) == (Ids{d.bolt}));
    CPPUNIT_ASSERT(companies(op("industry", "null", true)) == (Ids{d.cask}));
  }

  void testIdsEqInAndNull() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(Json::object({{"company_id", d.acme}})) == (Ids{d.alice, d.bob}));
    CPPUNIT_ASSERT(contacts(op("company_id", "eq", d.bolt)) == (Ids{d.carol}));
    CPPUNIT_ASSERT(contacts(op("company_id", "in", Json::Array{d.acme, d.dyna})) ==
                   (Ids{d.alice, d.bob, d.erin}));
    CPPUNIT_ASSERT(contacts(op("company_id", "null", true)) == (Ids{d.dan}));
    CPPUNIT_ASSERT(contacts(op("company_id", "null", false)) ==
                   (Ids{d.alice, d.bob, d.carol, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(op("owner_id", "eq", d.account.userId)) == (Ids{d.alice, d.dan}));
    CPPUNIT_ASSERT(contacts(op("owner_id", "null", true)) == (Ids{d.carol, d.erin}));
    CPPUNIT_ASSERT(contacts(op("id", "in", Json::Array{d.fay, d.alice})) == (Ids{d.alice, d.fay}));
    CPPUNIT_ASSERT(deals(op("contact_id", "null", true)) == (Ids{d.audit}));
    CPPUNIT_ASSERT(deals(Json::object({{"contact_id", d.alice}})) == (Ids{d.engine, d.renewal}));
    CPPUNIT_ASSERT(deals(op("pipeline_id", "eq", d.renewals.id)) == (Ids{d.renewal, d.mega}));
    CPPUNIT_ASSERT(deals(op("stage_id", "in", Json::Array{d.sales.stages[1]})) ==
                   (Ids{d.engine, d.audit}));
    CPPUNIT_ASSERT(activities(op("owner_id", "null", false)) == (Ids{d.callAlice, d.sendQuote}));
    // The members of an activity's related_to {type, id}.
    CPPUNIT_ASSERT(activities(Json::object({{"related_to.type", "contact"}})) ==
                   (Ids{d.callAlice, d.mailBob}));
    CPPUNIT_ASSERT(activities(op("related_to.id", "in", Json::Array{d.alice, d.engine})) ==
                   (Ids{d.callAlice, d.sendQuote}));
    CPPUNIT_ASSERT(activities(op("related_to.id", "null", true)) == (Ids{d.note}));
    // An id of nothing matches nothing.
    CPPUNIT_ASSERT(contacts(op("company_id", "eq", "comp_none")).empty());
  }

  void testDealStatusEnum() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(deals(Json::object({{"status", "won"}})) == (Ids{d.fleet, d.mega}));
    CPPUNIT_ASSERT(deals(op("status", "eq", "lost")) == (Ids{d.audit}));
    CPPUNIT_ASSERT(deals(op("status", "in", Json::Array{"won", "lost"})) ==
                   (Ids{d.fleet, d.audit, d.mega}));
    CPPUNIT_ASSERT(deals(op("status", "nin", Json::Array{"won", "lost"})) ==
                   (Ids{d.engine, d.parts, d.renewal}));
    CPPUNIT_ASSERT(deals(op("status", "ne", "open")) == (Ids{d.fleet, d.audit, d.mega}));
  }

  void testActivityTypeAndStatusEnums() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(activities(Json::object({{"type", "call"}})) == (Ids{d.callAlice}));
    CPPUNIT_ASSERT(activities(op("type", "in", Json::Array{"email", "call"})) ==
                   (Ids{d.callAlice, d.mailBob}));
    CPPUNIT_ASSERT(activities(op("type", "nin", Json::Array{"call", "meeting", "email"})) ==
                   (Ids{d.sendQuote, d.note}));
    CPPUNIT_ASSERT(activities(op("status", "eq", "completed")) == (Ids{d.meetAcme, d.mailBob}));
    CPPUNIT_ASSERT(activities(Json::object({{"status", "pending"}, {"type", "task"}})) ==
                   (Ids{d.sendQuote}));
  }

  void testEnumValueOutsideItsOptionsIs422() {
    const auto bad = [&](const std::string& path, const Json& filter) {
      return client_->get(path + "?" + filterParam(filter), bearer(token_));
    };
    QUERY_ASSERT_ERROR_UNDER(bad(kDeals, Json::object({{"status", "closed"}})), "filter.status");
    // A value of an in names the list, or the element in it ("filter.status.in.1").
    QUERY_ASSERT_ERROR_UNDER(bad(kDeals, op("status", "in", Json::Array{"open", "Won"})),
                             "filter.status.in");
    QUERY_ASSERT_ERROR_KEY(bad(kDeals, op("status", "eq", "OPEN")), "filter.status.eq");
    QUERY_ASSERT_ERROR_UNDER(bad(kActivities, op("type", "nin", Json::Array{"fax"})),
                             "filter.type.nin");
    QUERY_ASSERT_ERROR_KEY(bad(kActivities, op("status", "eq", "done")), "filter.status.eq");
  }

  void testMoneyRanges() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(
        deals(Json::object({{"value", Json::object({{"gte", 100000}, {"lt", 250000}})}})) ==
        (Ids{d.fleet, d.audit, d.renewal}));
    CPPUNIT_ASSERT(
        deals(Json::object({{"value", Json::object({{"gt", 100000}, {"lte", 250000}})}})) ==
        (Ids{d.engine, d.audit}));
    CPPUNIT_ASSERT(deals(Json::object({{"value", 100000}})) == (Ids{d.fleet, d.renewal}));
    CPPUNIT_ASSERT(deals(op("value", "ne", 100000)) == (Ids{d.engine, d.parts, d.audit, d.mega}));
    CPPUNIT_ASSERT(deals(op("value", "in", Json::Array{5000, 900000, 1})) ==
                   (Ids{d.parts, d.mega}));
    CPPUNIT_ASSERT(deals(op("value", "gte", 900001)).empty());
    CPPUNIT_ASSERT(companies(op("annual_revenue", "gte", 250000)) == (Ids{d.acme, d.dyna}));
  }

  void testIntegerComparisons() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(deals(op("probability", "gt", 50)) == (Ids{d.fleet, d.mega}));
    CPPUNIT_ASSERT(deals(op("probability", "lte", 30)) == (Ids{d.parts, d.renewal}));
    CPPUNIT_ASSERT(deals(Json::object({{"probability", 50}})) == (Ids{d.audit}));
    CPPUNIT_ASSERT(activities(op("duration_minutes", "gte", 30)) == (Ids{d.callAlice, d.meetAcme}));
    CPPUNIT_ASSERT(activities(op("duration_minutes", "lt", 30)) == (Ids{d.mailBob}));
  }

  void testNumberNull() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(companies(op("annual_revenue", "null", true)) == (Ids{d.cask}));
    CPPUNIT_ASSERT(companies(op("annual_revenue", "null", false)) == (Ids{d.acme, d.bolt, d.dyna}));
    CPPUNIT_ASSERT(activities(op("duration_minutes", "null", true)) == (Ids{d.sendQuote, d.note}));
    // ne matches the unset ones too; lt does not.
    CPPUNIT_ASSERT(companies(op("annual_revenue", "ne", 100000)) == (Ids{d.acme, d.cask, d.dyna}));
    CPPUNIT_ASSERT(companies(op("annual_revenue", "lt", 250000)) == (Ids{d.bolt}));
  }

  void testDateRanges() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(
        deals(Json::object({{"expected_close_date",
                             Json::object({{"gte", "2027-01-01"}, {"lt", "2027-04-01"}})}})) ==
        (Ids{d.engine, d.parts, d.renewal}));
    CPPUNIT_ASSERT(deals(op("expected_close_date", "lte", "2026-12-31")) == (Ids{d.fleet}));
    CPPUNIT_ASSERT(deals(op("expected_close_date", "gt", "2027-03-01")) == (Ids{d.mega}));
    CPPUNIT_ASSERT(deals(Json::object({{"expected_close_date", "2027-02-10"}})) ==
                   (Ids{d.renewal}));
    CPPUNIT_ASSERT(deals(op("expected_close_date", "in",
                            Json::Array{"2027-01-15", "2027-06-30"})) == (Ids{d.engine, d.mega}));
    CPPUNIT_ASSERT(deals(op("expected_close_date", "null", true)) == (Ids{d.audit}));
    // A date that is not YYYY-MM-DD (or not a real day) is the wrong type of value.
    for (const char* bad : {"2027-1-5", "tomorrow", "2027-01-15T00:00:00Z", "20270115"}) {
      QUERY_ASSERT_ERROR_KEY(
          client_->get(kDeals + "?" + filterParam(op("expected_close_date", "gte", bad)),
                       bearer(token_)),
          "filter.expected_close_date.gte");
    }
  }

  // Date-times are instants: a value with an offset compares by the instant
  // it names, not by its text (callAlice 09:00Z, meetAcme 12:00Z, mailBob
  // 04:30Z).
  void testDateTimeComparesInstantsAcrossOffsets() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(activities(op("scheduled_at", "gte", "2026-12-01T10:00:00+02:00")) ==
                   (Ids{d.callAlice, d.meetAcme}));
    CPPUNIT_ASSERT(activities(op("scheduled_at", "lt", "2026-12-01T06:00:00-01:00")) ==
                   (Ids{d.mailBob}));
    CPPUNIT_ASSERT(activities(op("scheduled_at", "eq", "2026-12-01T11:00:00+02:00")) ==
                   (Ids{d.callAlice}));
    CPPUNIT_ASSERT(
        activities(Json::object(
            {{"scheduled_at", Json::object({{"gt", "2026-12-01T04:30:00Z"},
                                            {"lte", "2026-12-01T12:00:00.000000Z"}})}})) ==
        (Ids{d.callAlice, d.meetAcme}));
    CPPUNIT_ASSERT(activities(op("scheduled_at", "null", true)) == (Ids{d.sendQuote, d.note}));
    QUERY_ASSERT_ERROR_KEY(
        client_->get(kActivities + "?" + filterParam(op("scheduled_at", "gte", "2026-12-01")),
                     bearer(token_)),
        "filter.scheduled_at.gte");
  }

  // created_at with a +02:00 offset: the instant of carol's creation, written
  // two hours ahead, still selects carol and the later contacts.
  void testCreatedAtWithAnOffset() {
    const Dataset& d = dataset();
    const Json carol =
        E2E_ASSERT_DATA(200, client_->get(kContacts + "/" + d.carol, bearer(token_)));
    const std::string at = atOffset(carol["created_at"].asString(), 120);
    CPPUNIT_ASSERT_MESSAGE(at, at.find("+02:00") != std::string::npos);
    CPPUNIT_ASSERT(contacts(op("created_at", "gte", at)) == (Ids{d.carol, d.dan, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(op("created_at", "gt", at)) == (Ids{d.dan, d.erin, d.fay}));
    CPPUNIT_ASSERT(contacts(op("created_at", "lt", at)) == (Ids{d.alice, d.bob}));
    const std::string west = atOffset(carol["created_at"].asString(), -330);  // -05:30
    CPPUNIT_ASSERT(contacts(op("created_at", "lte", west)) == (Ids{d.alice, d.bob, d.carol}));
  }

  void testTagsContainsInAnyCase() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(op("tags", "contains", "vip")) == (Ids{d.alice, d.erin}));
    CPPUNIT_ASSERT(contacts(op("tags", "contains", "LEAD")) == (Ids{d.alice, d.bob}));
    CPPUNIT_ASSERT(contacts(op("tags", "contains", "vi")).empty());  // a whole element
    CPPUNIT_ASSERT(companies(op("tags", "contains", "big")) == (Ids{d.acme, d.dyna}));
    CPPUNIT_ASSERT(deals(op("tags", "contains", "Q1")) == (Ids{d.engine}));
  }

  void testTagsNull() {
    const Dataset& d = dataset();
    CPPUNIT_ASSERT(contacts(op("tags", "null", true)) == (Ids{d.dan, d.fay}));
    CPPUNIT_ASSERT(contacts(op("tags", "null", false)) == (Ids{d.alice, d.bob, d.carol, d.erin}));
    CPPUNIT_ASSERT(deals(op("tags", "null", true)) == (Ids{d.fleet, d.audit, d.renewal}));
  }
};

CPPUNIT_TEST_SUITE_REGISTRATION(QueryFilterTest);
