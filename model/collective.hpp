// Collectives as rounds of flows between workers: each algorithm is written once, here,
// and every engine executes the rounds without knowing which algorithm they came from.
#pragma once
#include <vector>

#include "model/sync_plan.hpp"

namespace possim {

struct CollectiveSend {
  int peer = 0;  // worker index
  double bytes = 0;
};

// One round of one channel on one worker. Its sends start when the channel's previous
// round is complete; it is complete when its sends have landed and one flow from each
// peer in `receives` has arrived. The k-th receive from a peer on a channel matches that
// peer's k-th send to this worker on the same channel.
struct CollectiveRound {
  std::vector<CollectiveSend> sends;
  std::vector<int> receives;  // worker indices
};

// A worker's part of a collective: its channels run concurrently (a double tree has two,
// one per tree, as NCCL runs them), each a sequence of rounds.
using CollectiveSchedule = std::vector<std::vector<CollectiveRound>>;

// Worker w's schedule for `bytes` among `workers` workers, pipelined in `chunks` where
// the algorithm pipelines.
CollectiveSchedule collective_schedule(CollectiveKind kind, int workers, int w, double bytes, int chunks);

// What one instance of the collective puts on each worker's NIC, summed from the schedules.
struct CollectiveLoad {
  double tx_bytes_max = 0, rx_bytes_max = 0;  // busiest worker
  double total_bytes = 0;                     // all workers together
  double messages_max = 0;                    // sends of the busiest worker
  int rounds_max = 0;                         // rounds in series on the longest channel
};
CollectiveLoad collective_load(CollectiveKind kind, int workers, double bytes, int chunks);

}  // namespace possim
