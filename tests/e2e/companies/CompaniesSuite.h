// The server shared by the e2e.companies suites: companies and contacts enabled.
#pragma once

#include "e2e/companies/CrmApi.h"

namespace rapport::e2e::crm {

inline ServerProcess& companiesServer() {
  static ServerProcess server(crmSettings());
  return server;
}

}  // namespace rapport::e2e::crm
