#include "model/result_io.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace possim {

nlohmann::json result_to_json(const Result& r, bool with_timeline) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerResult& l : r.layers)
    layers.push_back({{"layer", l.name},
                      {"layer_index", l.layer},
                      {"kind", l.kind},
                      {"scheme", l.scheme},
                      {"params", l.params},
                      {"ps_params_per_iteration", l.ps_params},
                      {"sfb_params_per_iteration", l.sfb_params},
                      {"adam_params_per_iteration", l.adam_params},
                      {"why", l.why},
                      {"sync_start_s", l.sync_start_s},
                      {"sync_end_s", l.sync_end_s}});
  nlohmann::json links = nlohmann::json::array();
  for (const LinkUse& l : r.links)
    links.push_back({{"link", l.link}, {"bytes_per_iteration", l.bytes_per_iteration},
                     {"peak_utilization", l.peak_utilization}, {"mean_utilization", l.mean_utilization}});
  nlohmann::json j = {{"model", r.model},
          {"strategy", r.strategy},
          {"engine", r.engine},
          {"nodes", r.cluster.nodes},
          {"gpus_per_node", r.cluster.gpus_per_node},
          {"nic_gbps", r.cluster.nic_gbps},
          {"latency_s", r.cluster.latency_s},
          {"server_shards", r.cluster.server_shards},
          {"server_placement", to_string(r.cluster.placement)},
          {"batch_per_gpu", r.batch_per_gpu},
          {"iterations", r.iterations},
          {"simulated_iterations", r.simulated_iterations},
          {"iteration_s", r.iteration_s},
          {"iteration_end_s", r.iteration_end_s},
          {"images_per_s", r.images_per_s},
          {"single_gpu_images_per_s", r.single_gpu_images_per_s},
          {"speedup", r.speedup},
          {"scaling_efficiency", r.efficiency},
          {"gpu_busy_s", r.gpu_busy_s},
          {"gpu_stall_s", r.gpu_stall_s},
          {"stall_share", r.stall_share()},
          {"sent_bytes_per_node_max", r.sent_bytes_max},
          {"received_bytes_per_node_max", r.received_bytes_max},
          {"sent_bytes_per_node_mean", r.sent_bytes_mean},
          {"received_bytes_per_node_mean", r.received_bytes_mean},
          {"traffic_max_over_mean", r.traffic_imbalance()},
          {"flows_per_iteration", r.flows_per_iteration},
          {"layers", layers},
          {"links", links}};
  if (with_timeline) {
    nlohmann::json events = nlohmann::json::array();
    for (const TimelineEvent& e : r.timeline)
      events.push_back({e.track, e.name, e.category, e.start_s, e.duration_s, e.iteration});
    j["timeline"] = events;
  }
  return j;
}

Result result_from_json(const nlohmann::json& j) {
  Result r;
  r.model = j.at("model");
  r.strategy = j.at("strategy");
  r.engine = j.at("engine");
  r.cluster.nodes = j.at("nodes");
  r.cluster.gpus_per_node = j.at("gpus_per_node");
  r.cluster.nic_gbps = j.at("nic_gbps");
  r.cluster.latency_s = j.at("latency_s");
  r.cluster.server_shards = j.at("server_shards");
  r.cluster.placement = j.at("server_placement") == "dedicated" ? ServerPlacement::dedicated
                                                                : ServerPlacement::colocated;
  r.batch_per_gpu = j.at("batch_per_gpu");
  r.iterations = j.at("iterations");
  r.simulated_iterations = j.at("simulated_iterations");
  r.iteration_s = j.at("iteration_s");
  r.iteration_end_s = j.at("iteration_end_s").get<std::vector<double>>();
  r.images_per_s = j.at("images_per_s");
  r.single_gpu_images_per_s = j.at("single_gpu_images_per_s");
  r.speedup = j.at("speedup");
  r.efficiency = j.at("scaling_efficiency");
  r.gpu_busy_s = j.at("gpu_busy_s");
  r.gpu_stall_s = j.at("gpu_stall_s");
  r.sent_bytes_max = j.at("sent_bytes_per_node_max");
  r.received_bytes_max = j.at("received_bytes_per_node_max");
  r.sent_bytes_mean = j.at("sent_bytes_per_node_mean");
  r.received_bytes_mean = j.at("received_bytes_per_node_mean");
  r.flows_per_iteration = j.at("flows_per_iteration");
  for (const auto& l : j.at("layers")) {
    LayerResult row;
    row.name = l.at("layer");
    row.layer = l.at("layer_index");
    row.kind = l.at("kind");
    row.scheme = l.at("scheme");
    row.params = l.at("params");
    row.ps_params = l.at("ps_params_per_iteration");
    row.sfb_params = l.at("sfb_params_per_iteration");
    row.adam_params = l.at("adam_params_per_iteration");
    row.why = l.at("why");
    row.sync_start_s = l.at("sync_start_s");
    row.sync_end_s = l.at("sync_end_s");
    r.layers.push_back(row);
  }
  for (const auto& l : j.at("links"))
    r.links.push_back(LinkUse{l.at("link"), l.at("bytes_per_iteration"), l.at("peak_utilization"),
                              l.at("mean_utilization")});
  if (j.contains("timeline"))
    for (const auto& e : j["timeline"])
      r.timeline.push_back(TimelineEvent{e[0], e[1], e[2], e[3], e[4], e[5]});
  return r;
}

std::string results_csv(const std::vector<Result>& results) {
  std::ostringstream out;
  out.precision(10);
  out << "model,strategy,engine,nodes,gpus_per_node,nic_gbps,latency_s,server_shards,"
         "batch_per_gpu,iteration_s,images_per_s,speedup,scaling_efficiency,gpu_busy_s,"
         "gpu_stall_s,stall_share,sent_bytes_per_node_max,received_bytes_per_node_max,"
         "sent_bytes_per_node_mean,received_bytes_per_node_mean\n";
  for (const Result& r : results)
    out << r.model << ',' << r.strategy << ',' << r.engine << ',' << r.cluster.nodes << ','
        << r.cluster.gpus_per_node << ',' << r.cluster.nic_gbps << ',' << r.cluster.latency_s << ','
        << r.cluster.server_shards << ',' << r.batch_per_gpu << ',' << r.iteration_s << ','
        << r.images_per_s << ',' << r.speedup << ',' << r.efficiency << ',' << r.gpu_busy_s << ','
        << r.gpu_stall_s << ',' << r.stall_share() << ',' << r.sent_bytes_max << ','
        << r.received_bytes_max << ',' << r.sent_bytes_mean << ',' << r.received_bytes_mean << '\n';
  return out.str();
}

namespace {

// Tracks in reading order: each worker's GPU, PCIe and network, then each node's NIC
// (tx, rx), then the shards, then anything else; numbers compare as numbers ("worker 10" after "worker 9").
std::tuple<int, long, int, std::string> track_key(const std::string& track) {
  const auto number_after = [&](std::size_t pos) { return std::strtol(track.c_str() + pos, nullptr, 10); };
  if (track.rfind("worker ", 0) == 0) {
    const std::size_t space = track.find(' ', 7);
    const std::string what = space == std::string::npos ? "" : track.substr(space + 1);
    const int order = what == "GPU" ? 0 : what == "PCIe" ? 1 : what == "GPU-GPU" ? 2 : 3;
    return {0, number_after(7), order, what};
  }
  if (track.rfind("node ", 0) == 0) return {1, number_after(5), track.find(" rx") != std::string::npos, track};
  if (track.rfind("shard ", 0) == 0) return {2, number_after(6), 0, track};
  return {3, 0, 0, track};
}

// Catapult's reserved colour names, so every viewer that honours "cname" tells compute,
// copies, flows and server work apart at a glance.
const char* colour(const std::string& category) {
  if (category == "forward") return "thread_state_iowait";
  if (category == "backward") return "thread_state_running";
  if (category == "rebuild" || category == "quantize") return "olive";
  if (category == "copy_d2h" || category == "copy_h2d" || category == "gather" || category == "scatter")
    return "grey";
  if (category == "push") return "rail_response";
  if (category == "pull") return "rail_animation";
  if (category == "broadcast" || category == "allreduce") return "rail_load";
  if (category == "apply") return "terrible";
  return "generic_work";
}

}  // namespace

nlohmann::json chrome_trace(const std::vector<TimelineEvent>& events, const std::string& title) {
  // One process, one thread per track. Timestamps are microseconds (the format's unit).
  std::vector<std::string> tracks;
  for (const TimelineEvent& e : events) tracks.push_back(e.track);
  std::sort(tracks.begin(), tracks.end(),
            [](const std::string& a, const std::string& b) { return track_key(a) < track_key(b); });
  tracks.erase(std::unique(tracks.begin(), tracks.end()), tracks.end());
  std::map<std::string, int> tid;
  nlohmann::json list = nlohmann::json::array();
  list.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
                  {"args", {{"name", title}}}});
  for (const std::string& t : tracks) {
    const int id = int(tid.size()) + 1;
    tid[t] = id;
    list.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", id}, {"args", {{"name", t}}}});
    list.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", id},
                    {"args", {{"sort_index", id}}}});
  }
  for (const TimelineEvent& e : events)
    list.push_back({{"name", e.name},
                    {"cat", e.category},
                    {"ph", "X"},
                    {"pid", 0},
                    {"tid", tid[e.track]},
                    {"ts", e.start_s * 1e6},
                    {"dur", e.duration_s * 1e6},
                    {"cname", colour(e.category)},
                    {"args", {{"iteration", e.iteration}}}});
  return {{"traceEvents", list}};
}

void write_file_atomic(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  if (ec) throw std::runtime_error(path + ": cannot create folder: " + ec.message());
  const fs::path tmp = p.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error(path + ": cannot write");
    f << contents;
    f.flush();
    if (!f) {
      f.close();
      fs::remove(tmp, ec);
      throw std::runtime_error(path + ": write failed");
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(path + ": cannot rename into place");
  }
}

}  // namespace possim
