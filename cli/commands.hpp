// possim subcommands. Each returns the process exit status: 0 ok, 1 failure while
// running, 2 bad input (one line on stderr naming what and where), 3 a calibration whose fit
// is poor (cli/poor_fit.hpp).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/input/scenario.hpp"
#include "model/run/engine_registry.hpp"

namespace possim::cli {

int cmd_run(const std::vector<std::string>& args);
int cmd_explain(const std::vector<std::string>& args);
int cmd_models(const std::vector<std::string>& args);
int cmd_calibrate(const std::vector<std::string>& args);
int cmd_calibrate_fit(const std::vector<std::string>& args);
int cmd_calibrate_roofline(const std::vector<std::string>& args);
int cmd_validate(const std::vector<std::string>& args);
int cmd_collective(const std::vector<std::string>& args);
int cmd_profile(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_report(const std::vector<std::string>& args);
int cmd_plan(const std::vector<std::string>& args);
int cmd_live(const std::vector<std::string>& args);
int cmd_plan_dump(const std::vector<std::string>& args);
int cmd_run_plan(const std::vector<std::string>& args);

// A request for the engine registry's make_engine (model/run/engine_registry.hpp) with
// this process's rank under mpirun; `scenario` (for its engine sections, network and seed)
// must outlive the engine, null for a command that runs none (a live engine refuses it).
EngineRequest engine_request(const Scenario* scenario = nullptr);

}  // namespace possim::cli
