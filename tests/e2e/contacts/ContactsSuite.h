// The server shared by the e2e.contacts suites: contacts and companies enabled.
#pragma once

#include <string>

#include "e2e/companies/CrmApi.h"

namespace rapport::e2e::crm {

inline ServerProcess& contactsServer() {
  static ServerProcess server(crmSettings());
  return server;
}

}  // namespace rapport::e2e::crm
