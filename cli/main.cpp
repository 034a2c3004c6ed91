// possim: predict, explain and check the speed of data-parallel training (Poseidon).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "engines/builtin_engines.hpp"
#include "cli/interrupt.hpp"
#include "model/run/memory.hpp"
#include "model/input/error.hpp"
#include "model/input/json_check.hpp"
#include "model/input/text.hpp"
#include "model/run/version.hpp"

namespace {

const char* kUsage =
    "usage: possim COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run SCENARIO       predict throughput for every point of a scenario; writes JSON and CSV\n"
    "  sweep SWEEP        a grid over any scenario fields, in parallel, resumable, shardable (mpirun)\n"
    "  report RESULTS...  an HTML page of plots (gnuplot) from results.json files\n"
    "  plan SCENARIO      least NIC for a scaling efficiency, most nodes at a NIC, cheapest cluster\n"
    "  explain SCENARIO   show each layer's communication scheme, its costs and why\n"
    "  models [show NAME] list the model zoo, or one model's layers (--json for a layer JSON)\n"
    "  calibrate SUB      measure this machine (kernels, exchange) or fit a profile to a cluster (fit)\n"
    "  validate FILES     measured points beside a profile's predictions, with their errors\n"
    "  collective SCENARIO one all-reduce at each size, as NCCL-tests prints it; --compare its real output\n"
    "  profile SUB        show a profile, or derive one for another GPU from its published figures\n"
    "  live cleanup       delete the network namespaces of live runs whose possim has died\n"
    "  plan-dump SCENARIO one point's plan (its tasks, flows and rates) as JSON\n"
    "  run-plan PLAN      run a plan file (possim plan-dump's, or written by hand) on an engine\n"
    "\n"
    "`possim COMMAND --help` describes a command's options; `possim --version` prints the version.\n";

// A message as one printable line: control characters and bytes that are not UTF-8
// escaped (model/input/text.hpp), and at most kMaxMessageChars long. Every message possim
// prints for a failure goes through here.
constexpr std::size_t kMaxMessageChars = 4096;

std::string one_line(const std::string& s) {
  const std::string out = possim::printable_text(s.substr(0, kMaxMessageChars));
  return s.size() > kMaxMessageChars ? out + "..." : out;
}

// What was printed reaches its reader, or the command fails: `possim models >/dev/full`
// must not exit 0.
int flushed(int status) {
  std::cout.flush();
  if (std::cout && std::fflush(stdout) == 0) return status;
  const int err = errno;
  std::cerr << "possim: error: cannot write to standard output: " << std::strerror(err ? err : EIO) << '\n';
  return status == 0 ? 1 : status;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace possim;
  std::vector<std::string> args(argv + 1, argv + argc);
  register_builtin_engines();
  if (!args.empty() && args[0] == "--version") {
    std::cout << "possim " << possim_version() << '\n';
    return flushed(0);
  }
  keep_freed_memory();  // a command evaluates many points, each freeing what it built
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    if (!args.empty()) return flushed(0);
    std::cerr << "possim: no command given (expected run, sweep, plan, report, explain, models, calibrate, validate or profile)\n";
    return flushed(2);
  }
  const std::string command = args[0];
  args.erase(args.begin());
  // Every command: SIGINT and SIGTERM end its children (simulations, gnuplot, live nodes),
  // remove what it was writing, and exit 130 or 143 (cli/interrupt.hpp). Before any thread.
  cli::handle_interrupts();
  // After an interrupt, what failed because its child was killed (or even finished) waits
  // for the watcher to end possim with 130 or 143 (cli/interrupt.hpp).
  try {
    int status = -1;
    if (command == "run") status = cli::cmd_run(args);
    else if (command == "explain") status = cli::cmd_explain(args);
    else if (command == "models") status = cli::cmd_models(args);
    else if (command == "calibrate") status = cli::cmd_calibrate(args);
    else if (command == "validate") status = cli::cmd_validate(args);
    else if (command == "collective") status = cli::cmd_collective(args);
    else if (command == "profile") status = cli::cmd_profile(args);
    else if (command == "sweep") status = cli::cmd_sweep(args);
    else if (command == "report") status = cli::cmd_report(args);
    else if (command == "plan") status = cli::cmd_plan(args);
    else if (command == "live") status = cli::cmd_live(args);
    else if (command == "plan-dump") status = cli::cmd_plan_dump(args);
    else if (command == "run-plan") status = cli::cmd_run_plan(args);
    cli::wait_if_interrupted();
    if (status >= 0) return flushed(status);
    std::cerr << "possim: unknown command '" << one_line(command)
              << "' (expected run, sweep, plan, report, explain, models, calibrate, validate, collective, profile, live, plan-dump or run-plan)\n";
    return flushed(2);
  } catch (const InputError& e) {
    cli::wait_if_interrupted();
    std::cerr << "possim: " << one_line(e.what()) << '\n';
    return flushed(2);
  } catch (const nlohmann::json::exception& e) {  // a bug: said as one, not as the library's text
    cli::wait_if_interrupted();
    std::cerr << "possim: error: internal error handling JSON: " << one_line(json_check::exception_text(e)) << '\n';
    return flushed(1);
  } catch (const std::exception& e) {
    cli::wait_if_interrupted();
    std::cerr << "possim: error: " << one_line(e.what()) << '\n';
    return flushed(1);
  }
}
