// Everything a module author needs, in one include.
#pragma once

#include "rapport/abi.h"
#include "rapport/config.h"
#include "rapport/db.h"
#include "rapport/error.h"
#include "rapport/events.h"
#include "rapport/http.h"
#include "rapport/ids.h"
#include "rapport/jobs.h"
#include "rapport/json.h"
#include "rapport/log.h"
#include "rapport/module.h"
#include "rapport/pagination.h"
#include "rapport/records.h"
#include "rapport/roles.h"
#include "rapport/time.h"
#include "rapport/validation.h"
