// possim subcommands. Each returns the process exit status: 0 ok, 1 failure while
// running, 2 bad input (one line on stderr naming what and where).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/input/scenario.hpp"
#include "model/run/engine.hpp"

namespace possim::cli {

int cmd_run(const std::vector<std::string>& args);
int cmd_explain(const std::vector<std::string>& args);
int cmd_models(const std::vector<std::string>& args);
int cmd_calibrate(const std::vector<std::string>& args);
int cmd_calibrate_fit(const std::vector<std::string>& args);
int cmd_calibrate_roofline(const std::vector<std::string>& args);
int cmd_validate(const std::vector<std::string>& args);
int cmd_profile(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_report(const std::vector<std::string>& args);
int cmd_plan(const std::vector<std::string>& args);
int cmd_live(const std::vector<std::string>& args);

// Engines selectable with --engine; throws InputError for an unknown name.
// all_iterations: SimGrid simulates every iteration, even those that provably repeat.
// reduce: SimGrid folds symmetric clusters onto one worker: "auto" (from 32 nodes, where
// exact), "off" (--no-reduce) or "on" (--reduce; an input error where not exact).
// live: the scenario's live settings (network scale, links); required for "live".
// coordinator: HOST:PORT where mpirun's ranks meet for a live run (live/launch_mpi.hpp);
// required for "live" under mpirun, an input error elsewhere.
// net, seed: the scenario's network, which a live run with arithmetic compute evaluates
// (it must outlive the engine), and the seed of its weights and data. quiet: a live run
// says nothing on stderr but warnings and errors. network_solver: what shares SimGrid's
// NIC links: "star" (possim's solver for the star) or "lmm" (SimGrid's own, a Comm per
// flow; sim/network/nic_network.hpp); an input error otherwise.
std::unique_ptr<Engine> make_engine(const std::string& name, bool all_iterations = false,
                                    const std::string& reduce = "auto", const LiveSettings* live = nullptr,
                                    const std::string& coordinator = "", const Network* net = nullptr,
                                    std::uint64_t seed = 1, bool quiet = false,
                                    const std::string& network_solver = "star");
// The engine's results are this process's to write (false: a live rank serving under mpirun).
bool writes_results(const Engine& engine);
std::string default_engine();
std::string engine_names();

}  // namespace possim::cli
