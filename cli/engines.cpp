// The CLI's side of the engine registry (model/run/engine_registry.hpp): a request that
// carries this process's place under mpirun.
#include "cli/commands.hpp"
#include "cli/sweep_shard.hpp"

namespace possim::cli {

EngineRequest engine_request(const Scenario* scenario) {
  EngineRequest q;
  q.scenario = scenario;
  if (const std::optional<Shard> rank = mpi_shard()) q.mpi_rank = EngineRequest::Rank{rank->index, rank->count};
  return q;
}

}  // namespace possim::cli
