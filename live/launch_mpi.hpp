// A live run across the ranks of mpirun: rank r is node r. Open MPI only launches the
// processes and gives each its rank (OMPI_COMM_WORLD_RANK); possim links no MPI. The ranks
// meet at a coordinator address that rank 0 listens on; the data goes over possim's own
// TCP connections between the nodes, as Poseidon's does. Every rank runs the same command
// (`mpirun -np N possim run SCENARIO --engine live --coordinator HOST:PORT`), so every rank
// walks the same points in the same order: for each, rank 0 coordinates, runs node 0 in a
// child process and sends its plan (as JSON) to ranks 1..n-1, which serve as nodes
// 1..n-1 running that plan, not their own; ranks from n on sit it out.
#pragma once
#include <string>

#include "live/launch_local.hpp"

namespace possim::live {

struct MpiRank {
  int rank = 0, size = 1;
  std::string host;  // the coordinator: rank 0's address as the others reach it
  int port = 0;
};

// Rank 0: the run's reports. Other ranks: an empty LiveRun (reports empty) once their node
// is done. `seq` counts the plans every rank has run so far, the same on every rank: a
// rank that reaches the coordinator still busy with an earlier plan is turned away and
// tries again. Throws std::runtime_error (or InputError for too few ranks) on failure.
LiveRun run_rank(const SyncPlan& plan, const LaunchOptions& opt, const MpiRank& m, long seq);

}  // namespace possim::live
