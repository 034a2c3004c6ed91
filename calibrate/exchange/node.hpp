// One process of the live exchange. Every node serves: it accepts data connections, applies
// pushed KV-pair payloads to the shards it hosts, answers pulls, and acks SF broadcasts.
// A worker node also drives: on "run" it times pushes and pulls to every remote shard,
// SF broadcasts to every other worker, and bursts of small messages, and reports samples.
//
// Control protocol (JSON over `ctrl`, see exchange.cpp): node -> hello {address, port};
// coordinator -> setup {id, worker, roster, shard_node, plan}; node -> ready;
// coordinator -> run (workers, one at a time); worker -> samples; coordinator -> quit;
// node -> stats {apply_bytes, apply_s, applies}.
#pragma once
#include <string>

namespace possim::calibrate::exchange {

// Serve and (if a worker) drive until the coordinator says quit. Returns 0 on success;
// failures are reported on stderr and as a non-zero status.
int run_node(int ctrl_fd, const std::string& bind_address, double timeout_s);

}  // namespace possim::calibrate::exchange
