#include "model/result_io.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace possim {

nlohmann::json result_to_json(const Result& r) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerResult& l : r.layers)
    layers.push_back({{"layer", l.name},
                      {"kind", l.kind},
                      {"scheme", l.scheme},
                      {"params", l.params},
                      {"ps_params_per_iteration", l.ps_params},
                      {"sfb_params_per_iteration", l.sfb_params},
                      {"adam_params_per_iteration", l.adam_params},
                      {"why", l.why},
                      {"sync_start_s", l.sync_start_s},
                      {"sync_end_s", l.sync_end_s}});
  return {{"model", r.model},
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
          {"layers", layers}};
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

nlohmann::json chrome_trace(const std::vector<TimelineEvent>& events, const std::string& title) {
  // One process, one thread per track; tracks numbered in order of first appearance.
  std::map<std::string, int> tid;
  nlohmann::json list = nlohmann::json::array();
  list.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"tid", 0},
                  {"args", {{"name", title}}}});
  for (const TimelineEvent& e : events) {
    auto it = tid.find(e.track);
    if (it == tid.end()) {
      it = tid.emplace(e.track, int(tid.size()) + 1).first;
      list.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", it->second},
                      {"args", {{"name", e.track}}}});
      list.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", it->second},
                      {"args", {{"sort_index", it->second}}}});
    }
    list.push_back({{"name", e.name},
                    {"cat", e.category},
                    {"ph", "X"},
                    {"pid", 0},
                    {"tid", it->second},
                    {"ts", e.start_s * 1e6},
                    {"dur", e.duration_s * 1e6},
                    {"args", {{"iteration", e.iteration}}}});
  }
  return {{"traceEvents", list}, {"displayTimeUnit", "ms"}};
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
