#include "loader/DependencyOrder.h"

#include <map>
#include <string>

#include "loader/ModuleLoadError.h"

namespace rapport::host {
namespace {

enum class Mark { New, Visiting, Done };

class Walk {
 public:
  explicit Walk(const std::vector<rapport::ModuleInfo>& modules)
      : modules_(modules), marks_(modules.size(), Mark::New) {
    for (std::size_t i = 0; i < modules.size(); ++i) index_[modules[i].name] = i;
  }

  void checkRequired() const {
    for (const rapport::ModuleInfo& module : modules_) {
      for (const std::string& dependency : module.dependencies) {
        if (!index_.contains(dependency)) {
          throw ModuleLoadError("module '" + module.name + "' requires module '" + dependency +
                                "', which is not enabled");
        }
      }
    }
  }

  std::vector<std::size_t> run() {
    for (std::size_t i = 0; i < modules_.size(); ++i) visit(i);
    return order_;
  }

 private:
  void visit(std::size_t i) {
    if (marks_[i] == Mark::Done) return;
    if (marks_[i] == Mark::Visiting) throw cycle(i);
    marks_[i] = Mark::Visiting;
    path_.push_back(i);
    for (const std::string& dependency : modules_[i].dependencies) visit(index_.at(dependency));
    for (const std::string& link : modules_[i].optional) {
      if (auto found = index_.find(link); found != index_.end()) visit(found->second);
    }
    path_.pop_back();
    marks_[i] = Mark::Done;
    order_.push_back(i);
  }

  // The cycle is the part of the current path from `i` on, closed by `i`.
  ModuleLoadError cycle(std::size_t i) const {
    std::string text = "module dependency cycle: ";
    bool inCycle = false;
    for (std::size_t step : path_) {
      inCycle = inCycle || step == i;
      if (inCycle) text += modules_[step].name + " -> ";
    }
    return ModuleLoadError(text + modules_[i].name);
  }

  const std::vector<rapport::ModuleInfo>& modules_;
  std::map<std::string, std::size_t> index_;
  std::vector<Mark> marks_;
  std::vector<std::size_t> path_;
  std::vector<std::size_t> order_;
};

}  // namespace

std::vector<std::size_t> dependencyOrder(const std::vector<rapport::ModuleInfo>& modules) {
  Walk walk(modules);
  walk.checkRequired();
  return walk.run();
}

}  // namespace rapport::host
