// What a cluster costs: a small JSON the user edits (prices/example.json ships one with its
// sources and date).
//
//   {
//     "currency": "USD", "date": "2026-11", "description": "...",
//     "gpu_node": 12000,                          one node with the scenario's GPUs, without NIC
//     "nic": {"10": 150, "25": 250, "100": 700},  one NIC port per node, by Gbit/s
//     "switch_port": {"10": 60, "25": 110, "100": 400},  one switch port per node, by Gbit/s
//     "sources": {"gpu_node": "...", "nic": "...", "switch_port": "..."}
//   }
//
// Every speed in `nic` needs a `switch_port` price and the other way round.
#pragma once
#include <map>
#include <string>

namespace possim {

struct Prices {
  std::string path, currency, date, description;
  double gpu_node = 0;
  std::map<double, double> nic, switch_port;  // Gbit/s -> price per node
  std::map<std::string, std::string> sources;

  double cluster(int nodes, double gbps) const {
    return nodes * (gpu_node + nic.at(gbps) + switch_port.at(gbps));
  }
};

// Reads and checks a prices file: one InputError naming the file and the field.
Prices load_prices(const std::string& path);
Prices parse_prices(const std::string& json_text, const std::string& where);

}  // namespace possim
