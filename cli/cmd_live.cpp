// possim live cleanup: what a live run leaves when its possim is killed with SIGKILL (no
// handler runs): its nodes' network namespaces. The nodes themselves end with it (each
// dies with its parent, model/run/child_processes.hpp); the namespaces, named after the
// pid that made them (net/netns.hpp), are deleted here, or by the next live run.
#include <unistd.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "model/input/error.hpp"
#include "net/netns.hpp"

namespace possim::cli {

namespace {

const char* kUsage =
    "usage: possim live cleanup\n"
    "\n"
    "Deletes the network namespaces of live runs whose possim process is gone (killed with\n"
    "SIGKILL, or the machine's power cut mid-run). Needs root, as live runs over namespaces do.\n"
    "Namespaces of a live run still going are left alone.\n";

}  // namespace

int cmd_live(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "cleanup")
    throw InputError("possim live", "command line", "unknown subcommand '" + args[0] + "'", "cleanup");
  po::options_description desc("options");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse("live cleanup", {args.begin() + 1, args.end()}, desc, pos, vm, "")) return 0;
  if (::geteuid() != 0)
    throw InputError("possim live cleanup", "", "needs root (network namespaces)", "to be run as root");
  const int removed = net::NetnsCluster::cleanup_stale();
  std::cout << "possim live cleanup: deleted " << removed << " network namespace" << (removed == 1 ? "" : "s")
            << " of live runs that are gone\n";
  return 0;
}

}  // namespace possim::cli
