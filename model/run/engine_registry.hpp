// Which engines possim has, what each can do and how each is made. Each engine registers
// itself (register_analytic_engine(), sim::register_simgrid_engine(),
// live::register_live_engine(); engines/builtin_engines.hpp calls them all); the CLI,
// sweeps, reports, fits and results files ask this registry what an engine can do, and
// no code outside an engine compares engine names.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/input/engine_sections.hpp"
#include "model/input/scenario.hpp"
#include "model/run/engine.hpp"

namespace possim {

struct EngineCapabilities {
  // Evaluates the plan in closed form: every flow at its own rate, no contention, one
  // representative worker standing for all (its timeline is that worker's). Figures draw
  // its lines dashed and its points open.
  bool closed_form = false;
  // Runs the plan for real (processes, TCP) and measures it: its results are
  // measurements, not predictions, and it occupies the whole machine (one point at a time).
  bool measures = false;
  // Folds a symmetric cluster onto one worker (--reduce / --no-reduce).
  bool reduces_symmetric = false;
  // Records each link's use (Result::links); a results file from an engine that does not
  // and has links is not possim's.
  bool per_link_stats = false;
  // May run a sweep (possim sweep, sweep.json names it).
  bool runs_sweeps = false;
  // Its ranks meet at --coordinator HOST:PORT under mpirun.
  bool meets_ranks = false;
  // The largest cluster (nodes, dedicated servers included) one machine hosts without
  // mpirun; 0: no limit.
  int max_local_nodes = 0;
};

// What a command knows that an engine may need when it is made.
struct EngineRequest {
  // The scenario whose points it will run: its engine sections, network and seed (it
  // must outlive the engine). Null for a command that has none (sweep, plan, fit).
  const Scenario* scenario = nullptr;
  bool all_iterations = false;          // simulate every iteration, even those that repeat
  std::string reduce = "auto";          // "auto", "on" (--reduce) or "off" (--no-reduce)
  std::string network_solver = "star";  // what shares simulated NIC links: "star" or "lmm"
  std::string coordinator;              // HOST:PORT under mpirun
  struct Rank {
    int index = 0, count = 1;
  };
  std::optional<Rank> mpi_rank;         // this process's place under mpirun; none outside it
  bool quiet = false;                   // say nothing on stderr but warnings and errors
};

struct EngineInfo {
  std::string name;     // --engine NAME, and what a results file says ran it
  std::string summary;  // a few words for --help
  EngineCapabilities capabilities;
  // A scenario section this engine reads ("live"), with its check; "" and null when none.
  std::string settings_section;
  EngineSectionCheck check_settings = nullptr;
  // Throws InputError naming the option or field it cannot honour.
  std::function<std::unique_ptr<Engine>(const EngineRequest&)> make;
  // What this engine approximates for this scenario, "" when nothing: a warning before it runs.
  std::function<std::string(const Scenario&)> caveat;
};

// Adds an engine (replacing one of the same name) and declares its scenario section. The
// first registered is the default engine.
void register_engine(EngineInfo info);
// Removes an engine and its section (a test's own engine, once the test is done).
void unregister_engine(const std::string& name);

// Every registered engine, in registration order. Throws std::logic_error when none is
// (a program that forgot register_builtin_engines()).
const std::vector<EngineInfo>& registered_engines();
const EngineInfo* find_engine(const std::string& name);
// The engine `name`, or InputError at `option` listing the registered ones.
const EngineInfo& engine_named(const std::string& name, const std::string& option = "--engine");
const std::string& default_engine();
// "simgrid (contention, discrete-event), analytic (closed form), ..." for --help.
std::string engine_summaries();
// The registered names (those whose capabilities pass `which`, when given) joined by ", "
// and a last " or ": what an error expects instead.
std::string engine_choices(const std::function<bool(const EngineCapabilities&)>& which = nullptr);

// The engines that predict (do not measure), those that simulate contention (not closed
// form) first, otherwise in registration order: whose results a figure prefers.
std::vector<std::string> predicting_engines();

// engine_named(name).make(request), after the checks every engine shares (the solver's
// name, --coordinator only for an engine whose ranks meet).
std::unique_ptr<Engine> make_engine(const std::string& name, const EngineRequest& request);

// The capabilities of the engine that made `r` (all false for a name not registered).
EngineCapabilities capabilities_of(const std::string& engine);

}  // namespace possim
