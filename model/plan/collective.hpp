// Collectives as rounds of flows between workers: each algorithm is written once, here,
// and every engine executes the rounds without knowing which algorithm they came from.
#pragma once
#include <vector>

#include "model/plan/sync_plan.hpp"

namespace possim {

// A flow's stream: the k-th receive from a peer on a stream takes that peer's k-th send
// to this worker on the same stream.
struct CollectiveSend {
  int peer = 0;  // worker index
  double bytes = 0;
  int stream = 0;
};
struct CollectiveReceive {
  int peer = 0;
  int stream = 0;
};

// One round of one channel on one worker. Its sends start when the channel's previous
// round is complete; it is complete when its sends have landed and one flow from each
// of its receives has arrived (receives are buffered: a send moves as soon as it is
// posted, as into NCCL's slots).
struct CollectiveRound {
  std::vector<CollectiveSend> sends;
  std::vector<CollectiveReceive> receives;
};

// A worker's part of a collective: its channels run concurrently, each a sequence of
// rounds (a tree's inner node forwards up and down at once: two channels).
using CollectiveSchedule = std::vector<std::vector<CollectiveRound>>;

// Worker w's schedule for `bytes` among `workers` workers, pipelined in `chunks` where
// the algorithm pipelines.
CollectiveSchedule collective_schedule(CollectiveKind kind, int workers, int w, double bytes, int chunks);

// What one instance of the collective puts on each worker's NIC, summed from the schedules,
// and its critical path when each send costs `per_message_s` of the sender's time before it
// leaves, then `latency_s` and its bytes at `bytes_per_s` on the way (as if alone on its
// link): the longest chain of rounds across workers (a tree's depth plus its chunks, a
// ring's 2(P-1) steps), as latencies, message costs and bytes in series.
struct CollectiveLoad {
  double tx_bytes_max = 0, rx_bytes_max = 0;  // busiest worker
  double total_bytes = 0;                     // all workers together
  double messages_max = 0;                    // sends of the busiest worker
  int rounds_max = 0;                         // rounds of the longest channel
  int path_latencies = 0;                     // critical path: latencies in series
  int path_messages = 0;                      //   per-message costs in series
  double path_bytes = 0;                      //   and bytes moved in series
};
CollectiveLoad collective_load(CollectiveKind kind, int workers, double bytes, int chunks,
                               double latency_s = 0, double per_message_s = 0, double bytes_per_s = 0);

}  // namespace possim
