#include "model/run/engine_registry.hpp"

#include <mutex>
#include <stdexcept>

#include "model/input/error.hpp"

namespace possim {

namespace {

std::mutex& lock() {
  static std::mutex m;
  return m;
}
// Engines are registered once, at start-up, before any is looked up; the lock keeps a
// late registration safe all the same. Entries are never removed, so references stay valid
// while the vector does not grow (registration happens before lookups).
std::vector<EngineInfo>& engines() {
  static std::vector<EngineInfo> e;
  return e;
}

}  // namespace

void register_engine(EngineInfo info) {
  const std::lock_guard<std::mutex> g(lock());
  if (!info.settings_section.empty() && info.check_settings)
    declare_engine_section(info.settings_section, info.check_settings);
  for (EngineInfo& e : engines())
    if (e.name == info.name) {
      e = std::move(info);
      return;
    }
  engines().push_back(std::move(info));
}

void unregister_engine(const std::string& name) {
  const std::lock_guard<std::mutex> g(lock());
  for (auto it = engines().begin(); it != engines().end(); ++it)
    if (it->name == name) {
      if (!it->settings_section.empty()) forget_engine_section(it->settings_section);
      engines().erase(it);
      return;
    }
}

const std::vector<EngineInfo>& registered_engines() {
  const std::lock_guard<std::mutex> g(lock());
  if (engines().empty())
    throw std::logic_error("no engine is registered: call register_builtin_engines() (engines/builtin_engines.hpp) first");
  return engines();
}

const EngineInfo* find_engine(const std::string& name) {
  for (const EngineInfo& e : registered_engines())
    if (e.name == name) return &e;
  return nullptr;
}

const EngineInfo& engine_named(const std::string& name, const std::string& option) {
  if (const EngineInfo* e = find_engine(name)) return *e;
  throw InputError(option, "unknown engine '" + name.substr(0, 64) + "'", engine_choices());
}

const std::string& default_engine() { return registered_engines().front().name; }

std::string engine_summaries() {
  std::string s;
  for (const EngineInfo& e : registered_engines()) s += (s.empty() ? "" : ", ") + e.name + " (" + e.summary + ")";
  return s;
}

std::string engine_choices(const std::function<bool(const EngineCapabilities&)>& which) {
  std::vector<std::string> names;
  for (const EngineInfo& e : registered_engines())
    if (!which || which(e.capabilities)) names.push_back(e.name);
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return s;
}

std::vector<std::string> predicting_engines() {
  std::vector<std::string> simulated, closed;
  for (const EngineInfo& e : registered_engines())
    if (!e.capabilities.measures) (e.capabilities.closed_form ? closed : simulated).push_back(e.name);
  simulated.insert(simulated.end(), closed.begin(), closed.end());
  return simulated;
}

std::unique_ptr<Engine> make_engine(const std::string& name, const EngineRequest& request) {
  if (request.network_solver != "star" && request.network_solver != "lmm")
    throw InputError("--network-solver", "", "unknown solver '" + request.network_solver.substr(0, 64) + "'",
                     "star (possim's, the default) or lmm (SimGrid's own, for checking)");
  const EngineInfo& e = engine_named(name);
  if (!request.coordinator.empty() && !e.capabilities.meets_ranks)
    throw InputError("--coordinator", "", "only a live run has ranks to meet",
                     "--engine " + engine_choices([](const EngineCapabilities& c) { return c.meets_ranks; }));
  return e.make(request);
}

EngineCapabilities capabilities_of(const std::string& engine) {
  const EngineInfo* e = find_engine(engine);
  return e ? e->capabilities : EngineCapabilities{};
}

}  // namespace possim
