// Boost.Program_options glue: parse a subcommand's arguments, turning every mistake
// into one InputError line.
#pragma once
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "model/input/scenario.hpp"
#include "model/run/sweep.hpp"

namespace possim::cli {

namespace po = boost::program_options;

// Parses args; returns false (after printing help to stdout, then `epilogue`) when --help
// was given.
bool parse(const std::string& command, const std::vector<std::string>& args,
           po::options_description& desc, const po::positional_options_description& pos,
           po::variables_map& vm, const std::string& usage, const std::string& epilogue = "");

// The options every command that runs an engine spells alike: --engine (default simgrid),
// and --all-iterations for those that run SimGrid points.
void add_engine_option(po::options_description& desc, std::string& engine_name);
void add_all_iterations_option(po::options_description& desc, bool& all_iterations);
// --reduce / --no-reduce (SimGrid's folding of symmetric clusters, sim/fold.hpp): returns
// make_engine's reduce argument once parsed; both given is an input error.
void add_reduce_options(po::options_description& desc, bool& reduce, bool& no_reduce);
std::string reduce_mode(bool reduce, bool no_reduce);

// --strategy, --nodes, --gbps: one point of a scenario (explain, plan-dump).
void add_point_options(po::options_description& desc, std::string& strategy, int& nodes, double& gbps);
// The point they name, defaults filled in (poseidon if listed, else the first strategy;
// the largest node count; the first bandwidth) and checked against the scenario's limits.
SweepPoint choose_point(const Scenario& s, const po::variables_map& vm, std::string& strategy, int& nodes,
                        double& gbps);

}  // namespace possim::cli
