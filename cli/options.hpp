// Boost.Program_options glue: parse a subcommand's arguments, turning every mistake
// into one InputError line.
#pragma once
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace possim::cli {

namespace po = boost::program_options;

// Parses args; returns false (after printing help to stdout) when --help was given.
bool parse(const std::string& command, const std::vector<std::string>& args,
           po::options_description& desc, const po::positional_options_description& pos,
           po::variables_map& vm, const std::string& usage);

// The options every command that runs an engine spells alike: --engine (default simgrid),
// and --all-iterations for those that run SimGrid points.
void add_engine_option(po::options_description& desc, std::string& engine_name);
void add_all_iterations_option(po::options_description& desc, bool& all_iterations);
// --reduce / --no-reduce (SimGrid's folding of symmetric clusters, sim/fold.hpp): returns
// make_engine's reduce argument once parsed; both given is an input error.
void add_reduce_options(po::options_description& desc, bool& reduce, bool& no_reduce);
std::string reduce_mode(bool reduce, bool no_reduce);

}  // namespace possim::cli
