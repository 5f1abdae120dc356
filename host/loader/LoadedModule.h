// One module the loader accepted: its shared library, what its stamp and
// info() declared, and the module object made by its factory.
//
// Lifetime (stack-facts.md, "Boost.DLL modules"): code and data of the module
// live in `library`. Every route handler, listener, record callback, job and
// object taken from the module (or made by it) must be gone before its
// LoadedModule is destroyed: the app keeps the vector from start-up until
// shutdown, and on shutdown stops the server, drains requests and jobs, calls
// stop() in reverse order, clears its routes and registrations, and only then
// destroys the LoadedModule objects, last one first. Never unload while
// serving. `library` is the first member so that it is destroyed last, after
// `module`; moving keeps that order (see the move assignment).
//
// Threading: not synchronised; the app builds and destroys these on the main
// thread. The module object itself is shared by every request thread.
#pragma once

#include <boost/dll/shared_library.hpp>
#include <memory>
#include <string>

#include "rapport/module.h"

namespace rapport::host {

struct LoadedModule {
  boost::dll::shared_library library;  // first member: destroyed last
  std::string file;                    // the .so that was loaded, as found
  std::string name;                    // from the ABI stamp (equals info.name)
  std::string version;                 // from the ABI stamp
  rapport::ModuleInfo info;            // what module->info() returned at load
  std::unique_ptr<rapport::Module> module;

  LoadedModule() = default;
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;
  LoadedModule(LoadedModule&& other) noexcept = default;
  // Destroys this side's module before its library can be released.
  LoadedModule& operator=(LoadedModule&& other) noexcept;
  ~LoadedModule();
};

}  // namespace rapport::host
