// A live run across the ranks of mpirun: rank r is node r. Open MPI only launches the
// processes and gives each its rank (OMPI_COMM_WORLD_RANK); possim links no MPI. The ranks
// meet at a coordinator address that rank 0 listens on; the data goes over possim's own
// TCP connections between the nodes, as Poseidon's does. Every rank runs the same command
// (`mpirun -np N possim run SCENARIO --engine live --coordinator HOST:PORT`), but only
// rank 0 reads the scenario's points: for each, it coordinates, runs node 0 in a child
// process and sends the plan (as JSON) to ranks 1..n-1, which serve as nodes 1..n-1; ranks
// from n on sit it out. The others build no plan: they serve whatever rank 0 sends until
// it says the run is over.
#pragma once
#include <string>

#include "live/launch_local.hpp"

namespace possim::live {

struct MpiRank {
  int rank = 0, size = 1;
  std::string host;  // the coordinator: rank 0's address as the others reach it
  int port = 0;
};

// Rank 0: runs one plan across ranks 0..n-1 and returns the run's reports. A rank reaches
// the coordinator only between its plans (its node done), so it cannot join a wrong one.
// Throws std::runtime_error (or InputError for too few ranks) on failure.
LiveRun run_rank(const SyncPlan& plan, const LaunchOptions& opt, const MpiRank& m);
// Rank 0, once the run's points are done (or failed): every other rank is told so and ends.
void end_ranks(const LaunchOptions& opt, const MpiRank& m);
// Ranks 1..size-1: serve as node `m.rank` of every plan rank 0 sends, until it says the
// run is over. Between plans it waits for the coordinator without a limit (rank 0 may be
// running a plan this rank sits out); mpirun ends it if rank 0 dies. Throws
// std::runtime_error when its node fails.
void serve_rank(const LaunchOptions& opt, const MpiRank& m);

}  // namespace possim::live
