// A small emulated cluster on one machine: one network namespace per node, joined through
// a bridge in a "switch" namespace by veth links, each link shaped with tc tbf to a chosen
// rate in both directions (the node's egress, and the switch port's egress toward the node),
// as the Poseidon experiments throttled each NIC with tc. Addresses are private and live
// only inside these namespaces. Needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and iproute2.
//
// Names carry the creating pid ("psm<pid>-<k>-n<i>", "psm<pid>-<k>-sw"); the destructor
// deletes them on every path, and cleanup_stale() removes those of dead processes.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace possim::net {

// Namespaces or links could not be set up; what() says which command failed and why.
class NetnsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NetnsOptions {
  int nodes = 2;
  double rate_gbit = 1.0;  // tbf rate of every link, each direction
  int mtu = 1500;
  // tbf bucket; 0: max(16 KiB, 4 ms at the rate). A smaller bucket (1 ms was tried) costs
  // a link carrying data both ways about 20% of its rate (measured: 48 of 60 MB/s at
  // 0.5 Gbit/s with 64 KiB, 60 with 256 KiB): the kernel's tick is 4 ms (HZ=250). A larger
  // one lets short messages through faster than the rate: a 64 KiB floor is 10 ms of a
  // 50 Mbit/s link, and GoogLeNet's per-layer flows then beat the model by 10-15%.
  double burst_bytes = 0;
  double queue_latency_ms = 50;
};

class NetnsCluster {
 public:
  explicit NetnsCluster(const NetnsOptions& opt);  // throws NetnsError after cleaning up
  ~NetnsCluster();
  NetnsCluster(const NetnsCluster&) = delete;
  NetnsCluster& operator=(const NetnsCluster&) = delete;

  int nodes() const { return opt_.nodes; }
  const std::string& node_namespace(int i) const { return node_ns_.at(std::size_t(i)); }
  std::string node_address(int i) const;                             // inside node i's namespace
  const std::vector<std::string>& commands() const { return log_; }  // what was run
  double burst_bytes() const { return burst_; }
  const NetnsOptions& options() const { return opt_; }

  // Bytes node i's link has carried so far, as the kernel counts them (`ip -s link`): TCP
  // payload, acknowledgements and headers, the headers once per GSO packet (up to 64 KiB:
  // a veth passes them unsegmented), so about 0.4% over the payload: {tx, rx}.
  std::pair<double, double> link_bytes(int i) const;
  // Enter node i's namespace (the calling process; for forked children).
  void enter(int i) const;
  // Delete possim namespaces whose creating process is gone; returns how many.
  static int cleanup_stale();
  // Delete every namespace this process made (for an interrupt handler, which cannot
  // reach the clusters' destructors); returns how many.
  static int cleanup_own();

 private:
  void run(const std::vector<std::string>& argv);
  void teardown() noexcept;

  NetnsOptions opt_;
  double burst_ = 0;
  std::string switch_ns_;
  std::vector<std::string> node_ns_;
  std::vector<std::string> created_;  // namespaces to delete
  std::vector<std::string> log_;
};

// Run argv (no shell); returns the exit status and fills `output` with stdout+stderr.
int run_command(const std::vector<std::string>& argv, std::string& output);

}  // namespace possim::net
