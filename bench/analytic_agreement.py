"""The agreement table of bench/analytic_agreement.sh: error = analytic / SimGrid - 1 of the
iteration time, over every point both engines ran."""
import json
import os
import statistics
import sys

KEY = ["model", "strategy", "nodes", "gpus_per_node", "nic_gbps", "latency_s", "server_shards", "batch_per_gpu"]
# analytic_may_differ's thresholds (model/analytic/analytic_engine.hpp, kTrafficImbalanceLimit,
# kHiddenStallShare, kExposedApplyShare).
IMBALANCE_LIMIT = 1.001
STALL_SHARE = 0.01
APPLY_SHARE = 0.25


def rows(path):
    with open(path) as f:
        return {tuple(r[k] for k in KEY): r for r in json.load(f)["results"]}


def main():
    out, scenarios = sys.argv[1], sys.argv[2:]
    points = []  # (error, scenario, analytic row)
    for s in scenarios:
        n = os.path.splitext(os.path.basename(s))[0]
        a, g = rows(f"{out}/{n}.analytic/results.json"), rows(f"{out}/{n}.simgrid/results.json")
        for k, r in a.items():
            points.append((r["iteration_s"] / g[k]["iteration_s"] - 1, n, r))
    # The analytic engine's own flag (results.json's traffic_max_over_mean) against where it
    # is in fact outside 3%.
    flag = [r["stall_share"] > STALL_SHARE and
            (r["traffic_max_over_mean"] > IMBALANCE_LIMIT or r["time_s"]["server_apply_s"] > APPLY_SHARE * r["iteration_s"])
            for _, _, r in points]
    errs = [abs(e) for e, _, _ in points]
    inside = sum(1 for x in errs if x <= 0.03)
    print(f"{len(points)} points; {inside} within 3% ({inside / len(points):.0%}); |error| median "
          f"{statistics.median(errs):.2%}, mean {statistics.mean(errs):.2%}, worst {max(errs):.1%}; "
          f"{sum(1 for e, _, _ in points if e < -0.03)} outside 3% are optimistic (analytic faster), "
          f"{sum(1 for e, _, _ in points if e > 0.03)} pessimistic.")
    outside = [abs(e) > 0.03 for e, _, _ in points]
    print(f"The analytic engine's warning (the GPU waits for more than {STALL_SHARE:.0%} of the iteration, and the busiest "
          f"node carries more than {IMBALANCE_LIMIT} x the mean node's traffic or the servers' apply holds the GPU for more "
          f"than {APPLY_SHARE:.0%} of it) flags "
          f"{sum(flag)} points: {sum(1 for f, o in zip(flag, outside) if f and o)} of the {sum(outside)} outside 3% "
          f"and {sum(1 for f, o in zip(flag, outside) if f and not o)} of the {len(points) - sum(outside)} within; "
          f"`possim plan --engine analytic` runs the flagged points on SimGrid.")
    print()
    print("## Per scenario and strategy (points outside 3% / points, worst error)\n")
    print("| scenario | strategy | outside 3% | worst error | at (nodes x GPUs, Gbit/s) |")
    print("|---|---|---:|---:|---|")
    groups = {}
    for e, n, r in points:
        groups.setdefault((n, r["strategy"]), []).append((e, r))
    order = sorted(groups.items(), key=lambda g: -max(abs(e) for e, _ in g[1]))
    for (n, st), es in order:
        out_n = sum(1 for e, _ in es if abs(e) > 0.03)
        if out_n == 0:
            continue
        e, r = max(es, key=lambda x: abs(x[0]))
        print(f"| {n} | {st} | {out_n} / {len(es)} | {e:+.1%} | {r['nodes']} x {r['gpus_per_node']}, {float(r['nic_gbps']):g} |")
    ok = [(n, st) for (n, st), es in order if all(abs(e) <= 0.03 for e, _ in es)]
    print(f"\nWithin 3% at every point ({len(ok)} scenario/strategy pairs): " + ", ".join(f"{n} {st}" for n, st in sorted(ok)) + ".")
    print("\n## The 25 worst points\n")
    print("| error | scenario | strategy | nodes x GPUs | Gbit/s | analytic s | SimGrid s |")
    print("|---:|---|---|---|---:|---:|---:|")
    for e, n, r in sorted(points, key=lambda p: -abs(p[0]))[:25]:
        sim = r["iteration_s"] / (1 + e)
        print(f"| {e:+.1%} | {n} | {r['strategy']} | {r['nodes']} x {r['gpus_per_node']} | {float(r['nic_gbps']):g} | "
              f"{r['iteration_s']:.4f} | {sim:.4f} |")


if __name__ == "__main__":
    main()
