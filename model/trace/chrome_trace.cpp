#include "model/trace/chrome_trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>

#include "model/plan/step.hpp"

namespace possim {

namespace {

// Tracks in reading order: each worker's GPU streams ("GPU", then "GPU 1", "GPU 2", ...),
// PCIe each way, GPU-GPU, network and host CPU, then each node's NIC (tx, rx), then the
// shards, then anything else; numbers compare as numbers ("worker 10" after "worker 9").
std::tuple<int, long, int, long, std::string> track_key(const std::string& track) {
  const auto number_after = [&](std::size_t pos) { return std::strtol(track.c_str() + pos, nullptr, 10); };
  if (track.rfind("worker ", 0) == 0) {
    const std::size_t space = track.find(' ', 7);
    const std::string what = space == std::string::npos ? "" : track.substr(space + 1);
    const bool gpu_lane = what.rfind("GPU ", 0) == 0;
    const int order = what == "GPU" ? 0 : gpu_lane ? 1 : what.rfind("PCIe", 0) == 0 ? 2 : what == "GPU-GPU" ? 3
                    : what == "net" ? 4 : 5;
    return {0, number_after(7), order, gpu_lane ? std::strtol(what.c_str() + 4, nullptr, 10) : 0, what};
  }
  if (track.rfind("node ", 0) == 0) return {1, number_after(5), track.find(" rx") != std::string::npos, 0, track};
  if (track.rfind("shard ", 0) == 0) return {2, number_after(6), 0, 0, track};
  return {3, 0, 0, 0, track};
}

// Catapult's reserved colour names, so every viewer that honours "cname" tells compute,
// copies, flows and server work apart at a glance: the step's (an event's category is its
// step's name, model/plan/step.hpp).
const char* colour(const std::string& category) {
  const std::optional<Step> step = step_from_string(category);
  return step ? trace_colour(*step) : "generic_work";
}

// A slice as written: whole nanoseconds, on one thread.
struct Slice {
  std::int64_t start_ns = 0, end_ns = 0;
  int pid = 0, tid = 0;
};

double microseconds(std::int64_t ns) { return double(ns) / 1000.0; }

// Where a track goes: its process (pid), and that process's name. A worker's tracks and its
// node's NICs are node w's (worker w runs on node w), a shard's on the node that hosts it
// (TraceMeta::shard_nodes; a process "shard S" of its own past the nodes when unknown),
// the analytic engine's representative worker one process, anything else (the cluster's
// "step sync") the trace's own process 0, named by its title.
struct Place {
  int pid = 0;
  std::string process;
};

std::optional<long> number_after(const std::string& track, const char* prefix) {
  const std::size_t n = std::char_traits<char>::length(prefix);
  if (track.rfind(prefix, 0) != 0 || track.size() <= n || !std::isdigit(static_cast<unsigned char>(track[n])))
    return std::nullopt;
  return std::strtol(track.c_str() + n, nullptr, 10);
}

std::string node_name(long node, const TraceMeta& meta) {
  std::string name = "node " + std::to_string(node);
  if (meta.nodes > 0 && node >= meta.nodes) name += " (server)";
  return name;
}

Place place(const std::string& track, const TraceMeta& meta, long shard_base) {
  if (const auto w = number_after(track, "worker ")) return {int(*w) + 1, node_name(*w, meta)};
  if (const auto n = number_after(track, "node ")) return {int(*n) + 1, node_name(*n, meta)};
  if (const auto s = number_after(track, "shard ")) {
    if (*s < long(meta.shard_nodes.size())) {
      const int node = meta.shard_nodes[std::size_t(*s)];
      return {node + 1, node_name(node, meta)};
    }
    return {int(shard_base + *s), "shard " + std::to_string(*s)};
  }
  if (track.rfind("representative ", 0) == 0) return {1, "representative worker"};
  return {0, ""};
}

// Processes for the nodes, threads for the tracks and their lanes, with each event's
// slice. Lane k > 0 of a track is named "TRACK · k+1" and sorted right under it. Threads
// are numbered across the file in reading order, each sorted by its number.
std::vector<Slice> lay_out(const std::vector<TimelineEvent>& events, const TraceMeta& meta, nlohmann::json& list) {
  std::vector<Slice> slices(events.size());
  std::map<std::string, std::vector<std::size_t>> by_track;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TimelineEvent& e = events[i];
    slices[i].start_ns = std::llround(e.start_s * 1e9);
    slices[i].end_ns = std::max<std::int64_t>(slices[i].start_ns, std::llround((e.start_s + e.duration_s) * 1e9));
    by_track[e.track].push_back(i);
  }
  // Shards of no known node get processes past every node.
  long shard_base = std::max(1, meta.nodes) + 1;
  for (const auto& [track, members] : by_track)
    for (const char* prefix : {"worker ", "node "})
      if (const auto n = number_after(track, prefix)) shard_base = std::max(shard_base, *n + 2);
  for (int node : meta.shard_nodes) shard_base = std::max(shard_base, long(node) + 2);
  std::vector<std::pair<Place, std::string>> tracks;
  for (const auto& [track, members] : by_track) tracks.emplace_back(place(track, meta, shard_base), track);
  std::stable_sort(tracks.begin(), tracks.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.first.pid, track_key(a.second)) < std::make_tuple(b.first.pid, track_key(b.second));
  });
  int tid = 0, pid = -1;
  for (const auto& [where, track] : tracks) {
    if (where.pid != pid && where.pid != 0) {
      list.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", where.pid}, {"tid", 0},
                      {"args", {{"name", where.process}}}});
      list.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", where.pid}, {"tid", 0},
                      {"args", {{"sort_index", where.pid}}}});
    }
    pid = where.pid;
    std::vector<std::size_t>& members = by_track[track];
    std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      return std::tie(slices[a].start_ns, slices[a].end_ns) < std::tie(slices[b].start_ns, slices[b].end_ns);
    });
    std::vector<std::int64_t> lane_end;  // first fit: the lowest lane free at the start
    for (std::size_t i : members) {
      std::size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > slices[i].start_ns) ++lane;
      if (lane == lane_end.size()) lane_end.push_back(0);
      lane_end[lane] = slices[i].end_ns;
      slices[i].pid = pid;
      slices[i].tid = tid + 1 + int(lane);
    }
    for (std::size_t lane = 0; lane < lane_end.size(); ++lane) {
      const int id = ++tid;
      const std::string name = lane == 0 ? track : track + " \u00b7 " + std::to_string(lane + 1);
      list.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", id}, {"args", {{"name", name}}}});
      list.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid}, {"tid", id},
                      {"args", {{"sort_index", id}}}});
    }
  }
  return slices;
}

// What a slice's args say: the step, iteration, layer, worker, and what the record holds
// of bytes, the peer node, the shard and the flows it stands for.
nlohmann::json args_of(const TimelineEvent& e) {
  nlohmann::json a = {{"step", e.category}, {"iteration", e.iteration}};
  if (e.layer >= 0) a["layer"] = e.layer;
  if (e.worker >= 0) a["worker"] = e.worker;
  if (e.bytes >= 0) a["bytes"] = std::llround(e.bytes);
  if (e.peer >= 0) a["peer"] = "node " + std::to_string(e.peer);
  if (e.shard >= 0) a["shard"] = e.shard;
  if (e.flows > 0) a["flows"] = e.flows;
  return a;
}

// Arrows from each (worker, layer, iteration)'s backward slice to the same key's slices
// that start after it ends. With several GPUs per node the last backward to end is the
// source: the sync waits for it. Endpoints are slice midpoints, strictly inside each
// slice, so the viewer binds them to that slice and not to a neighbour touching it.
std::size_t add_flows(const std::vector<TimelineEvent>& events, const std::vector<Slice>& slices,
                      nlohmann::json& list) {
  using Key = std::tuple<int, int, int>;
  const auto key = [&](std::size_t i) { return Key{events[i].worker, events[i].layer, events[i].iteration}; };
  const auto bindable = [&](std::size_t i) {
    return events[i].worker >= 0 && events[i].layer >= 0 && slices[i].end_ns - slices[i].start_ns >= 2;
  };
  const auto mid = [&](std::size_t i) { return slices[i].start_ns + (slices[i].end_ns - slices[i].start_ns) / 2; };
  std::map<Key, std::size_t> backward;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].category != "backward" || !bindable(i)) continue;
    const auto it = backward.find(key(i));
    if (it == backward.end() || slices[i].end_ns > slices[it->second].end_ns) backward[key(i)] = i;
  }
  std::size_t flows = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].category == "forward" || events[i].category == "backward" || !bindable(i)) continue;
    const auto it = backward.find(key(i));
    if (it == backward.end() || slices[it->second].end_ns > slices[i].start_ns) continue;
    const std::size_t from = it->second, id = ++flows;
    const std::string name = "gradient";
    list.push_back({{"name", name}, {"cat", "gradient"}, {"ph", "s"}, {"id", id}, {"pid", slices[from].pid},
                    {"tid", slices[from].tid}, {"ts", microseconds(mid(from))}});
    list.push_back({{"name", name}, {"cat", "gradient"}, {"ph", "f"}, {"bp", "e"}, {"id", id}, {"pid", slices[i].pid},
                    {"tid", slices[i].tid}, {"ts", microseconds(mid(i))}});
  }
  return flows;
}

}  // namespace

std::string chrome_trace(const std::vector<TimelineEvent>& events, const TraceMeta& meta) {
  nlohmann::json list = nlohmann::json::array();
  list.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
                  {"args", {{"name", meta.title + (meta.workers.empty() ? "" : " \u00b7 " + meta.workers)}}}});
  list.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", 0}, {"args", {{"sort_index", 0}}}});
  if (!meta.workers.empty())
    list.push_back({{"name", "process_labels"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
                    {"args", {{"labels", meta.workers}}}});
  const std::vector<Slice> slices = lay_out(events, meta, list);
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TimelineEvent& e = events[i];
    list.push_back({{"name", e.name},
                    {"cat", e.category},
                    {"ph", "X"},
                    {"pid", slices[i].pid},
                    {"tid", slices[i].tid},
                    {"ts", microseconds(slices[i].start_ns)},
                    {"dur", microseconds(slices[i].end_ns - slices[i].start_ns)},
                    {"cname", colour(e.category)},
                    {"args", args_of(e)}});
  }
  const std::size_t flows = add_flows(events, slices, list);
  nlohmann::json metadata = meta.args;
  metadata["workers"] = meta.workers;
  metadata["slices"] = events.size();
  metadata["flows"] = flows;
  const nlohmann::json header = {{"possim", metadata}};
  return "{\"traceEvents\":" + list.dump() + ",\"metadata\":" + header.dump() + "}";
}

}  // namespace possim
