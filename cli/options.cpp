#include "cli/options.hpp"

#include <iostream>

#include "cli/commands.hpp"
#include "model/input/error.hpp"

namespace possim::cli {

bool parse(const std::string& command, const std::vector<std::string>& args,
           po::options_description& desc, const po::positional_options_description& pos,
           po::variables_map& vm, const std::string& usage) {
  desc.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: possim " << command << ' ' << usage << "\n\n" << desc << '\n';
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError("possim " + command, "command line", e.what(),
                     "possim " + command + " " + usage);
  }
  return true;
}

void add_engine_option(po::options_description& desc, std::string& engine_name) {
  desc.add_options()("engine", po::value(&engine_name)->default_value(default_engine()),
                     ("engine: " + engine_summaries()).c_str());
}

void add_all_iterations_option(po::options_description& desc, bool& all_iterations) {
  desc.add_options()("all-iterations", po::bool_switch(&all_iterations),
                     "SimGrid: simulate every iteration, even those that provably repeat the one before");
}

void add_reduce_options(po::options_description& desc, bool& reduce, bool& no_reduce) {
  desc.add_options()("reduce", po::bool_switch(&reduce),
                     "SimGrid: fold the workers onto worker 0 at any size (exact; refused where the cluster "
                     "is not symmetric); by default from 32 nodes where exact")(
      "no-reduce", po::bool_switch(&no_reduce), "SimGrid: simulate every node, never folded");
}

std::string reduce_mode(bool reduce, bool no_reduce) {
  if (reduce && no_reduce) throw InputError("--reduce", "", "given with --no-reduce", "one of them");
  return reduce ? "on" : no_reduce ? "off" : "auto";
}

}  // namespace possim::cli
