// Which share of a sweep's points this process runs: all of them, every n-th from i
// (--shard i/n, for batch schedulers), or its rank's share under mpirun.
//
// Under mpirun possim does not link MPI: it reads the rank and size Open MPI gives every
// process it starts (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE). Why: the binary is the
// same with and without MPI and builds where MPI is missing; nothing of MPI (its progress
// threads, its rules on fork()) meets the simulations possim forks; and a sweep needs no
// messages between ranks but their finished points, which a rank already writes to its
// folder. Rank r runs shard r/n into OUT/shard-r-of-n, rank 0 then waits for every other
// shard's points and writes OUT whole, as `possim sweep merge` would. So OUT must be on a
// filesystem every rank sees (as a batch job's output folder is); where there is none,
// run --shard i/n on each machine and merge the folders.
#pragma once
#include <optional>
#include <string>

namespace possim::cli {

struct Shard {
  int index = 0, count = 1;
  bool mpi = false;     // from mpirun's environment
  int local_ranks = 1;  // ranks on this machine (they share its cores)

  // "shard-1-of-4": a shard's folder under the sweep's.
  std::string folder_name() const;
};

// "i/n" with 0 <= i < n; an InputError naming --shard otherwise.
Shard parse_shard(const std::string& text);
// The rank's shard under mpirun (Open MPI's environment), or nothing.
std::optional<Shard> mpi_shard();

}  // namespace possim::cli
