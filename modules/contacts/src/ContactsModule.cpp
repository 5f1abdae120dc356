// contacts: the people a company works with (docs/modules/contacts.md).
// This file is the module's table of contents; the record itself is a
// declaration of the record engine (ContactsResource.cpp), which serves
// /crm/contacts (list, search, create, get, update, delete, batch upserts by
// email) and, while the companies module is enabled, a CRM company's
// contacts at /crm/companies/{id}/contacts; stores contacts with its
// indexes, search and tag tables; emits crm.contact.created|updated|deleted;
// owns the record type "contact"; and unlinks the contacts of a deleted CRM
// company.
#include "ContactsResource.h"
#include "rapport/sdk.h"

namespace contacts {
namespace {

class ContactsModule final : public rapport::Module {
 public:
  rapport::ModuleInfo info() const override {
    return {.name = "contacts",
            .version = "1.0.0",
            .description = "Contacts: the people a company works with.",
            .dependencies = {},
            .optional = {"companies"}};
  }

  void setup(rapport::Host& host, rapport::Registry& registry) override {
    rapport::Resource(contactsSpec()).install(host, registry);
  }
};

}  // namespace
}  // namespace contacts

RAPPORT_MODULE(contacts::ContactsModule, "contacts", "1.0.0")
