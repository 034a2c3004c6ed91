// A scenario: one question about a cluster, as a JSON file. Every field is checked;
// bad input throws InputError naming the file, the field and what was expected.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/input/cluster.hpp"
#include "model/input/consistency.hpp"
#include "model/workload/network.hpp"
#include "model/input/profile.hpp"
#include "model/input/straggler_model.hpp"

namespace possim {

// How Poseidon picks each FC layer's scheme: ATC'17's bytes rule (SFB where its factors are
// fewer bytes than the PS's matrix), SACP'16's (SFB against Adam), or timed: the scheme of each
// layer that gives the shortest iteration as the analytic engine times the whole plan.
enum class BestSchemeRule { atc17, sacp16, timed };


struct StrategyOptions {
  double kv_pair_bytes = 2.0 * 1024 * 1024;
  // Gradient bucket (fusion buffer) of the all-reduce strategies, bytes: a collective starts
  // once its bucket holds this much (PyTorch DDP's bucket_cap_mb, 25 MiB; Horovod's
  // HOROVOD_FUSION_THRESHOLD, 64 MiB). 0: one collective per layer, as Caffe's and Poseidon's.
  double bucket_bytes = 0;
  Consistency consistency = Consistency::bsp;
  int staleness = 0;                // SSP only; 0 with bsp
  BestSchemeRule best_scheme = BestSchemeRule::atc17;
  StragglerModel stragglers;
};

struct Scenario {
  std::string path;          // where it was read from
  std::string sha256;        // of the JSON text it was parsed from
  std::string name;
  std::string description;
  std::string model_ref;     // zoo name or path to a layer JSON (the first, of a list)
  Network network;           // model_ref's
  // "model" may be a list (a sweep axis, as cluster.nodes): every ref as written, in order
  // (one entry for a single model), and, only for a list, every model's network.
  // per_model() splits a list into scenarios of one model each.
  std::vector<std::string> model_refs;
  std::vector<Network> networks;
  int batch_per_gpu = 32;
  // "precision" and "gradient_dtype": how it trains (model/input/numerics.hpp); every
  // strategy's profile has it applied.
  Numerics numerics;
  std::vector<int> nodes;          // sweep axis
  std::vector<double> nic_gbps;    // sweep axis
  int gpus_per_node = 1;
  int nics_per_node = 1;
  double latency_s = 50e-6;
  int server_shards = 0;           // 0: one per worker node
  ServerPlacement placement = ServerPlacement::colocated;
  Transport transport = Transport::tcp;  // "cluster.transport"
  std::vector<std::string> strategies;
  StrategyOptions options;
  std::string profile_ref;
  Profile profile;
  // Software stack per strategy ("stacks": {"wfbp": "poseidon_tf"}); a strategy left out
  // runs on the profile's default stack for it.
  std::map<std::string, std::string> stacks;
  // The profile as each strategy of the scenario (and "single", the speedup reference)
  // sees it: its stack applied. Filled by parse_scenario.
  std::map<std::string, Profile> strategy_profiles;
  const Profile& profile_for(const std::string& strategy) const;
  int iterations = 5;
  std::uint64_t seed = 1;
  // Each engine's own section as written ("live": live/live_settings.hpp), checked by the
  // engine that declared it (model/input/engine_sections.hpp) when the scenario was read.
  std::map<std::string, nlohmann::json> engine_settings;
  // The section named `key`, or null when the scenario has none.
  const nlohmann::json* engine_section(const std::string& key) const;

  // The cluster of one sweep point.
  Cluster cluster(int nodes, double nic_gbps) const;
};

// Parse and validate; relative paths (model, profile) resolve against the file's folder.
Scenario load_scenario(const std::string& path);
Scenario parse_scenario(const std::string& json_text, const std::string& where,
                        const std::string& base_dir);

// One scenario per model of "model", in order (`s` itself when it names one model).
std::vector<Scenario> per_model(const Scenario& s);
// Throws InputError (file, "model", what was expected) when `s` lists several models and
// `command` (e.g. "possim explain") answers for one.
void require_one_model(const Scenario& s, const std::string& command);

// `s` run on profile `p` instead (its precision applied, each strategy's stack re-applied):
// a fitted profile's predictions, or a perturbed one's. Throws InputError naming `p` when
// it lacks a stack the scenario names or a peak for its precision.
Scenario with_profile(const Scenario& s, const Profile& p);

// A name that can become a file or folder name (results/NAME): letters, digits, '.', '_' and
// '-', at most limits::kMaxNameChars, not "." or "..".
bool safe_name(const std::string& name);
// A file's stem made a safe name (other characters become '_'), or "scenario".
std::string name_from_path(const std::string& path);

const char* to_string(Consistency c);
const char* to_string(BestSchemeRule r);

}  // namespace possim
