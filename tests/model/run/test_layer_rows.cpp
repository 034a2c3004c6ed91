// fill_layer_rows (model/run/engine.hpp): each layer's sync window in the last iteration,
// from that iteration's start, over the layer's tasks other than its own passes.
#include <algorithm>
#include <map>
#include <vector>

#include <catch2/catch.hpp>

#include "support/fixtures.hpp"
#include "model/run/engine.hpp"

using namespace possim;
using namespace possim::test;

TEST_CASE("layer rows: a sync window is the earliest start and latest finish of the layer's sync "
          "tasks even when a start is a rounding before the iteration's start", "[engine][layers]") {
  const Network net = small_cnn();
  const SyncPlan plan = make_plan("ps", request(net, flat_profile(), 4, 10, 32, 3));
  Result r;
  r.iteration_end_s = {1.0, 2.0, 3.0};  // the last iteration starts at 2.0
  // The i-th sync task of layer L (plan order) spans [2 + 0.1 L + 0.01 i, 2.5 + 0.1 L + 0.01 i];
  // the first one of layer 0 starts 1e-15 s before the iteration (a repeated iteration's
  // shifted times round so), which must stay the start. Passes are never the window.
  std::vector<std::pair<double, double>> spans(plan.tasks.size(), {0.0, 0.0});
  std::map<int, int> seen;
  std::map<int, std::pair<double, double>> want;  // from the iteration's start
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const Task& t = plan.tasks[i];
    if (t.layer < 0 || t.pass()) continue;
    const int k = seen[t.layer]++;
    double start = 2.0 + 0.1 * t.layer + 0.01 * k;
    const double finish = start + 0.5;
    if (t.layer == 0 && k == 0) start = 2.0 - 1e-15;
    spans[i] = {start, finish};
    auto [it, fresh] = want.try_emplace(t.layer, start - 2.0, finish - 2.0);
    if (!fresh) it->second = {std::min(it->second.first, start - 2.0), std::max(it->second.second, finish - 2.0)};
  }
  fill_layer_rows(plan, r, [&](std::size_t i) { return spans[i]; });
  REQUIRE(!r.layers.empty());
  REQUIRE(want.count(0));
  for (const LayerResult& row : r.layers) {
    INFO("layer " << row.layer);
    REQUIRE(want.count(row.layer));
    CHECK(row.sync_start_s == Approx(want[row.layer].first).margin(1e-12));
    CHECK(row.sync_end_s == Approx(want[row.layer].second).margin(1e-12));
  }
  const auto first = std::find_if(r.layers.begin(), r.layers.end(), [](const LayerResult& row) { return row.layer == 0; });
  REQUIRE(first != r.layers.end());
  CHECK(first->sync_start_s < 0);  // the rounding is kept, not taken for "none"
  CHECK(first->sync_start_s > -1e-12);
}
