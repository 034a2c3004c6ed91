#include "model/run/result_io.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace possim {

nlohmann::json breakdown_to_json(const Breakdown& b) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < kTimeShares; ++i) j[column_name(TimeShare(i))] = b.s[i];
  return j;
}

namespace {

Breakdown breakdown_from_json(const nlohmann::json& j) {
  Breakdown b;
  for (std::size_t i = 0; i < kTimeShares; ++i) b.s[i] = j.at(column_name(TimeShare(i))).get<double>();
  return b;
}

}  // namespace

nlohmann::json result_to_json(const Result& r, bool with_timeline) {
  const Result::Spread spread = r.iteration_spread();
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
                      {"sync_end_s", l.sync_end_s},
                      {"time_s", breakdown_to_json(l.breakdown)}});
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
          {"reduced_to_nodes", r.reduced_to_nodes},
          {"iteration_s", r.iteration_s},
          {"iteration_end_s", r.iteration_end_s},
          {"iteration_s_min", spread.min_s},
          {"iteration_s_max", spread.max_s},
          {"iteration_s_stdev", spread.stdev_s},
          {"dropped_workers", r.dropped_workers},
          {"images_per_s", r.images_per_s},
          {"single_gpu_images_per_s", r.single_gpu_images_per_s},
          {"speedup", r.speedup},
          {"scaling_efficiency", r.efficiency},
          {"gpu_busy_s", r.gpu_busy_s},
          {"gpu_stall_s", r.gpu_stall_s},
          {"stall_share", r.stall_share()},
          {"time_s", breakdown_to_json(r.breakdown)},
          {"sent_bytes_per_node_max", r.sent_bytes_max},
          {"received_bytes_per_node_max", r.received_bytes_max},
          {"sent_bytes_per_node_mean", r.sent_bytes_mean},
          {"received_bytes_per_node_mean", r.received_bytes_mean},
          {"traffic_max_over_mean", r.traffic_imbalance()},
          {"flows_per_iteration", r.flows_per_iteration},
          {"layers", layers},
          {"links", links}};
  j["partial"] = r.partial();
  if (r.partial()) j["failure"] = r.failure;
  if (!r.training_loss.empty()) {
    j["training_loss"] = r.training_loss;
    j["replicas_agree"] = r.replicas_agree;
  }
  if (with_timeline) {
    nlohmann::json events = nlohmann::json::array();
    for (const TimelineEvent& e : r.timeline)
      events.push_back({e.track, e.name, e.category, e.start_s, e.duration_s, e.iteration, e.layer, e.worker});
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
  r.reduced_to_nodes = j.value("reduced_to_nodes", 0);
  r.iteration_s = j.at("iteration_s");
  r.iteration_end_s = j.at("iteration_end_s").get<std::vector<double>>();
  if (j.contains("dropped_workers")) r.dropped_workers = j.at("dropped_workers").get<std::vector<std::vector<int>>>();
  r.failure = j.value("failure", "");
  if (j.contains("training_loss")) {
    r.training_loss = j.at("training_loss").get<std::vector<double>>();
    r.replicas_agree = j.value("replicas_agree", true);
  }
  r.images_per_s = j.at("images_per_s");
  r.single_gpu_images_per_s = j.at("single_gpu_images_per_s");
  r.speedup = j.at("speedup");
  r.efficiency = j.at("scaling_efficiency");
  r.gpu_busy_s = j.at("gpu_busy_s");
  r.gpu_stall_s = j.at("gpu_stall_s");
  r.breakdown = breakdown_from_json(j.at("time_s"));
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
    row.breakdown = breakdown_from_json(l.at("time_s"));
    r.layers.push_back(row);
  }
  for (const auto& l : j.at("links"))
    r.links.push_back(LinkUse{l.at("link"), l.at("bytes_per_iteration"), l.at("peak_utilization"),
                              l.at("mean_utilization")});
  if (j.contains("timeline"))
    for (const auto& e : j["timeline"])
      r.timeline.push_back(TimelineEvent{e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]});
  return r;
}

std::string results_csv(const std::vector<Result>& results) {
  std::ostringstream out;
  out.precision(10);
  out << "model,strategy,engine,nodes,gpus_per_node,nic_gbps,latency_s,server_shards,"
         "batch_per_gpu,iteration_s,iteration_s_min,iteration_s_max,iteration_s_stdev,images_per_s,speedup,scaling_efficiency,gpu_busy_s,"
         "gpu_stall_s,stall_share,sent_bytes_per_node_max,received_bytes_per_node_max,"
         "sent_bytes_per_node_mean,received_bytes_per_node_mean,reduced_to_nodes,dropped_worker_steps,partial";
  for (std::size_t i = 0; i < kTimeShares; ++i) out << ',' << column_name(TimeShare(i));
  out << '\n';
  for (const Result& r : results) {
    const Result::Spread spread = r.iteration_spread();
    out << r.model << ',' << r.strategy << ',' << r.engine << ',' << r.cluster.nodes << ','
        << r.cluster.gpus_per_node << ',' << r.cluster.nic_gbps << ',' << r.cluster.latency_s << ','
        << r.cluster.server_shards << ',' << r.batch_per_gpu << ',' << r.iteration_s << ','
        << spread.min_s << ',' << spread.max_s << ',' << spread.stdev_s << ','
        << r.images_per_s << ',' << r.speedup << ',' << r.efficiency << ',' << r.gpu_busy_s << ','
        << r.gpu_stall_s << ',' << r.stall_share() << ',' << r.sent_bytes_max << ','
        << r.received_bytes_max << ',' << r.sent_bytes_mean << ',' << r.received_bytes_mean << ','
        << r.reduced_to_nodes << ',' << r.dropped_worker_steps() << ',' << (r.partial() ? 1 : 0);
    for (double v : r.breakdown.s) out << ',' << v;
    out << '\n';
  }
  return out.str();
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
