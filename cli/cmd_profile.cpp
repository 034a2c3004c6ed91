// possim profile: look at a profile, or derive one for another GPU.
//   profile show NAME      the per-kind achieved FLOP/s table and the data-movement rates
//   profile derive ...     a profile for another GPU from its device sheet (published figures),
//                          scaling each layer kind of a measured base profile through a roofline
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "calibrate/profile_json.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/input/profile.hpp"
#include "model/input/profile_derive.hpp"
#include "model/input/text.hpp"
#include "model/run/output_file.hpp"
#include "model/run/result_io.hpp"

namespace possim::cli {

namespace {

const char* kProfileUsage =
    "usage: possim profile SUBCOMMAND [options]\n"
    "\n"
    "subcommands:\n"
    "  list       the shipped profiles: device, fp32 peak, what their compute and rates rest on\n"
    "  show NAME  a profile's per-kind efficiency and achieved TFLOP/s, and its rates\n"
    "             (--sources: where each number came from)\n"
    "  derive     a profile for another GPU from its device sheet (profiles/devices/*.json):\n"
    "             possim profile derive --from titanx_maxwell --device v100 --out v100.json\n"
    "\n"
    "`possim profile SUBCOMMAND --help` describes its options.\n";

const std::vector<LayerKind> kKinds = {
    LayerKind::conv, LayerKind::fc,     LayerKind::bn,  LayerKind::pool,    LayerKind::relu,
    LayerKind::lrn,  LayerKind::concat, LayerKind::add, LayerKind::dropout, LayerKind::softmax};

double efficiency_of(const Profile& p, LayerKind k) {
  const auto it = p.kind_efficiency.find(k);
  return it == p.kind_efficiency.end() ? kDefaultMemoryBoundEfficiency : it->second;
}

void print_rates(const Profile& p, std::ostream& out) {
  Table t({"field", "value"});
  t.add({"peak_flops_per_s", si(p.peak_flops_per_s, "FLOP/s")});
  t.add({"pcie_bytes_per_s", si(p.pcie_bytes_per_s, "B/s")});
  t.add({"pcie_latency_s", si(p.pcie_latency_s, "s")});
  t.add({"d2d_bytes_per_s", si(p.d2d_bytes_per_s, "B/s")});
  t.add({"rebuild_flops_per_s", si(p.rebuild_flops_per_s, "FLOP/s")});
  t.add({"quantize_bytes_per_s", si(p.quantize_bytes_per_s, "B/s")});
  t.add({"tcp_goodput", fixed(p.tcp_goodput, 3)});
  t.add({"tcp_host_bytes_per_s", p.tcp_host_bytes_per_s > 0 ? si(p.tcp_host_bytes_per_s, "B/s") : "none"});
  t.add({"rdma_efficiency", p.rdma_efficiency > 0 ? fixed(p.rdma_efficiency, 4) : "none"});
  t.add({"per_message_s", si(p.per_message_s, "s")});
  t.add({"server_apply_bytes_per_s", si(p.server_apply_bytes_per_s, "B/s")});
  t.add({"per_iteration_s", si(p.per_iteration_s, "s")});
  if (p.step_sync_s > 0) t.add({"step_sync_s", si(p.step_sync_s, "s")});
  t.add({"throughput points", std::to_string(p.throughput.size())});
  t.add({"measured timing sets", std::to_string(p.measured.size())});
  t.print(out);
}

int cmd_show(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::vector<std::string> words;
  bool sources = false;
  desc.add_options()("words", po::value(&words)->multitoken(), "NAME: a shipped profile or a file")(
      "sources", po::bool_switch(&sources), "also print where each number came from");
  po::positional_options_description pos;
  pos.add("words", -1);
  po::variables_map vm;
  if (!parse("profile show", args, desc, pos, vm, "NAME [--sources]")) return 0;
  if (words.size() != 1)
    throw InputError("possim profile show", "command line",
                     words.empty() ? "no profile named" : "more than one profile named",
                     "possim profile show NAME [--sources]");
  const Profile p = load_profile(words[0], ".");
  std::cout << p.name << ": " << p.device << "\n" << p.path << "\n\n";
  Table t({"kind", "efficiency", "achieved TFLOP/s", ""});
  for (LayerKind k : kKinds) {
    const double e = efficiency_of(p, k);
    t.add({to_string(k), fixed(e, 4), fixed(e * p.peak_flops_per_s / 1e12, 3),
           p.kind_efficiency.count(k) ? "" : "(not in the profile: default)"});
  }
  t.print(std::cout);
  std::cout << '\n';
  print_rates(p, std::cout);
  if (!p.stacks.empty()) {
    // Each stack's software parameters as its strategies see them (inherited values too).
    std::cout << "\nsoftware stacks (default for: ";
    bool first = true;
    for (const auto& [strategy, stack] : p.default_stacks) {
      std::cout << (first ? "" : ", ") << strategy << " -> " << stack;
      first = false;
    }
    std::cout << ")\n";
    std::vector<std::string> head = {"parameter"};
    for (const auto& [name, _] : p.stacks) head.push_back(name);
    Table st(head);
    std::vector<std::string> fw = {"framework"}, late = {"sync after backward"};
    for (const auto& [name, stack] : p.stacks) {
      fw.push_back(stack.framework.empty() ? "-" : stack.framework);
      late.push_back(stack.sync_after_backward ? "yes" : "no");
    }
    st.add(fw);
    st.add(late);
    for (const auto& param : stack_parameter_names()) {
      std::vector<std::string> row = {param};
      for (const auto& [name, stack] : p.stacks) {
        char b[32];
        std::snprintf(b, sizeof b, "%.4g%s", p.with_stack(name).parameter(param),
                      stack.params.count(param) ? "" : " *");
        row.push_back(b);
      }
      st.add(row);
    }
    st.print(std::cout);
    std::cout << "(* inherited from the top level)\n";
  }
  if (sources) {
    std::cout << "\nstack sources:\n";
    for (const auto& [name, stack] : p.stacks)
      for (const auto& [k, v] : stack.sources)
        std::cout << "  stacks." << name << "." << k << ": " << v << "\n";
    std::cout << "\nsources:\n";
    for (const auto& [k, v] : p.sources) std::cout << "  " << k << ": " << v << "\n";
  }
  return 0;
}

int cmd_derive(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::string from, device, base_device, out, name;
  desc.add_options()("from", po::value(&from)->required(),
                     "base profile measured on a real GPU (shipped name or file)")(
      "device", po::value(&device)->required(),
      "device sheet of the target GPU (shipped name in profiles/devices/, or a file)")(
      "base-device", po::value(&base_device),
      "device sheet of the base profile's GPU (default: the shipped sheet named like the base "
      "profile)")("out", po::value(&out)->required(), "profile file to write")(
      "name", po::value(&name), "profile name (default: the device sheet's name)");
  po::positional_options_description pos;
  po::variables_map vm;
  const std::string usage =
      "--from PROFILE --device SHEET --out FILE [--name NAME] [--base-device SHEET]";
  if (!parse("profile derive", args, desc, pos, vm, usage)) return 0;

  check_output_file(out, "--out");  // before the work
  if (vm.count("name") && (name.empty() || name.size() > limits::kMaxLabelChars || !is_label_text(name)))
    throw InputError("--name", "", "'" + json_check::quoted(name) + "' is not a profile name",
                     "printable text of 1 to " + std::to_string(limits::kMaxLabelChars) + " bytes");
  const Profile base = load_profile(from, ".");
  const DeviceSheet bs = load_device_sheet(base_device.empty() ? base.name : base_device, ".");
  const DeviceSheet t = load_device_sheet(device, ".");
  const Profile p = derive_profile(base, bs, t, name.empty() ? t.name : name);

  // Every field the profile struct has, then any top-level field of the base file that the
  // writer does not know (a newer format section): copied through unchanged. Not the base's
  // fit covariance, which derive_profile drops on purpose (the writer omits it when empty).
  nlohmann::ordered_json j = calibrate::profile_to_json(p);
  {
    const std::string base_text = read_input_file(base.path, "profile file", "an existing profile JSON");
    json_check::check_depth(base_text, base.path);
    const auto raw = nlohmann::ordered_json::parse(base_text, nullptr, /*allow_exceptions=*/false);
    if (raw.is_object())
      for (const auto& item : raw.items())
        if (!j.contains(item.key()) && item.key() != "fit_covariance") j[item.key()] = item.value();
  }
  const std::string text = j.dump(2) + "\n";
  parse_profile(text, out);  // possim must accept what it writes
  write_file_atomic(out, text, "--out");

  std::cout << "derived " << p.name << " (" << t.device << ") from " << base.name << " ("
            << bs.device << ")\n\n";
  Table k({"kind", "base eff", "base TFLOP/s", "new eff", "new TFLOP/s", "x"});
  for (LayerKind kind : kKinds) {
    const double rb = efficiency_of(base, kind) * base.peak_flops_per_s;
    const double rn = efficiency_of(p, kind) * p.peak_flops_per_s;
    k.add({to_string(kind), fixed(efficiency_of(base, kind), 4), fixed(rb / 1e12, 3),
           fixed(efficiency_of(p, kind), 4), fixed(rn / 1e12, 3), fixed(rn / rb, 3)});
  }
  k.print(std::cout);
  std::cout << '\n';
  print_rates(p, std::cout);
  std::cout << "\nwrote " << out << " (`possim profile show " << out
            << " --sources` says how each number was made)\n";
  return 0;
}

}  // namespace

// One line per shipped profile: enough to choose --profile (a validate or fit refusal
// points here).
int cmd_list(const std::vector<std::string>& args) {
  po::options_description desc("options");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse("profile list", args, desc, pos, vm, "")) return 0;
  Table t({"name", "device", "fp32 peak", "compute from", "derived from", "intervals"});
  for (const std::string& name : shipped_profile_names()) {
    const Profile p = load_profile(name);
    const std::string device = p.device.substr(0, std::min({p.device.find(" ("), p.device.find(" ["), p.device.find(',')}));
    const std::string base = derived_from(p);
    const std::string compute = !p.measured.empty()     ? "measured layers"
                                : !p.throughput.empty() ? "throughput points"
                                : !base.empty()         ? "roofline of its base"
                                                        : "FLOP model";
    t.add({name, device, si(p.peak_flops_per_s, "FLOP/s"), compute, base.empty() ? "-" : base,
           p.fit_covariance.empty() ? "none" : counted(long(p.fit_covariance.parameters.size()), "parameter")});
  }
  t.print(std::cout);
  std::cout << "fp32 peak = the profile's peak_flops_per_s: the datasheet's, or for measured layers the fastest "
               "rate measured; "
               "compute from = what a layer's time rests on (possim profile show NAME --sources says more); "
               "derived from = the measured profile possim profile derive scaled (its host, network and software "
               "rates copied); intervals = the fit covariance a run propagates to 95% intervals, over how many "
               "parameters (none: runs on it print no interval)\n";
  return 0;
}

int cmd_profile(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kProfileUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string sub = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "list") return cmd_list(rest);
  if (sub == "show") return cmd_show(rest);
  if (sub == "derive") return cmd_derive(rest);
  throw InputError("possim profile", "command line", "unknown subcommand '" + sub + "'",
                   "list, show or derive");
}

}  // namespace possim::cli
