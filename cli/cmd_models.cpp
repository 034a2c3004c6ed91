// possim models: the zoo at a glance; `models show NAME` one network's layers, or its
// layer JSON (--json), which a scenario can load back as a user's own model.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/layer_json.hpp"
#include "model/workload/zoo.hpp"

namespace possim::cli {

int cmd_models(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::vector<std::string> words;
  bool json = false;
  desc.add_options()("words", po::value(&words)->multitoken(), "show NAME")(
      "json", po::bool_switch(&json), "with show: write the layer JSON to stdout");
  po::positional_options_description pos;
  pos.add("words", -1);
  po::variables_map vm;
  if (!parse("models", args, desc, pos, vm, "[show NAME [--json]]")) return 0;

  if (words.empty()) {
    Table t({"model", "layers", "parameters", "GFLOP/image fwd", "input", "variant"});
    for (const auto& name : zoo_names()) {
      const Network n = make_zoo_network(name);
      t.add({n.name, std::to_string(n.layers.size()), std::to_string(n.total_params()),
             fixed(n.total_fwd_macs() * 2 / 1e9, 3),
             std::to_string(n.input.c) + "x" + std::to_string(n.input.h) + "x" + std::to_string(n.input.w),
             n.description});
    }
    t.print(std::cout);
    return 0;
  }
  if (words[0] != "show" || words.size() != 2)
    throw InputError("possim models", "command line", "unexpected arguments", "possim models [show NAME [--json]]");
  const Network n = load_network(words[1], ".");
  if (json) {
    std::cout << network_to_json(n).dump(2) << '\n';
    return 0;
  }
  std::cout << n.name << ": " << n.description << "\n"
            << n.total_params() << " parameters, " << fixed(n.total_fwd_macs() / 1e9, 3)
            << " GMACs forward per image\n\n";
  Table t({"layer", "kind", "in", "out", "params", "MFLOP fwd", "M x N"});
  const auto shape = [](const Shape& s) {
    return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
  };
  for (const Layer& l : n.layers)
    t.add({l.name, to_string(l.kind), shape(l.in), shape(l.out), std::to_string(l.params()),
           fixed(l.fwd_flops / 1e6, 1),
           l.kind == LayerKind::fc ? std::to_string(l.fc_m) + " x " + std::to_string(l.fc_n) : ""});
  t.print(std::cout);
  return 0;
}

}  // namespace possim::cli
