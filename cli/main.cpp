// possim: predict, explain and check the speed of data-parallel training (Poseidon).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "model/error.hpp"

namespace {

const char* kUsage =
    "usage: possim COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO       predict throughput for every point of a scenario; writes JSON and CSV\n"
    "  explain SCENARIO   show each layer's communication scheme, its costs and why\n"
    "  models [show NAME] list the model zoo, or one model's layers (--json for a layer JSON)\n"
    "  calibrate SUB      measure this machine (kernels, exchange) or fit a profile to a cluster (fit)\n"
    "  validate FILES     measured points beside a profile's predictions, with their errors\n"
    "  profile SUB        show a profile, or derive one for another GPU from its published figures\n"
    "\n"
    "`possim COMMAND --help` describes a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace possim;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "run") return cli::cmd_run(args);
    if (command == "explain") return cli::cmd_explain(args);
    if (command == "models") return cli::cmd_models(args);
    if (command == "calibrate") return cli::cmd_calibrate(args);
    if (command == "validate") return cli::cmd_validate(args);
    if (command == "profile") return cli::cmd_profile(args);
    std::cerr << "possim: unknown command '" << command
              << "' (expected run, explain, models, calibrate, validate or profile)\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << "possim: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "possim: error: " << e.what() << '\n';
    return 1;
  }
}
