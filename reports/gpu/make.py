#!/usr/bin/env python3
"""reports/gpu/README.md's tables, from the GPU run committed under traces/gpu/ (issue 30).

Reads the recorded outputs of bench/gpu_calibration.sh (roofline, per-layer kernels, the
interference microbenchmark, the live point), the datasheet-derived profile and the measured
one, and runs `possim run --engine analytic` on scenarios/today's H100 scenarios with each
profile. Prints markdown; `make.sh` writes it into README.md between the markers.
Usage: reports/gpu/make.py [--possim build/cli/possim] [--run traces/gpu/h200_2026-11-27]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KINDS = ["conv", "fc", "bn", "pool", "relu", "lrn", "concat", "add", "dropout", "softmax"]


def load(path):
    with open(os.path.join(ROOT, path)) as f:
        return json.load(f)


def tf(x):
    return "-" if x is None else f"{x / 1e12:.2f}"


def per_kind_seconds(side):
    out = {}
    for layer in side["layers"]:
        out[layer["kind"]] = out.get(layer["kind"], 0.0) + layer["forward_s"] + layer["backward_s"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--possim", default=os.path.join(ROOT, "build", "cli", "possim"))
    ap.add_argument("--run", default="traces/gpu/h200_2026-11-27")
    a = ap.parse_args()
    run = a.run
    p = print

    # --- the roofline ---
    roof = load(f"{run}/call1/roofline.json")
    sheet = load("profiles/devices/h200.json")
    peaks = {"fp32": sheet["fp32_flops_per_s"]["value"], "tf32": sheet["tf32_flops_per_s"]["value"],
             "bf16": sheet["bf16_flops_per_s"]["value"]}
    p("### The roofline (`possim calibrate roofline`, call 1)\n")
    p("| what | measured | datasheet | share |")
    p("|---|---:|---:|---:|")
    for g in roof["gemm"]:
        p(f"| 8192^3 GEMM, {g['algorithm'].split('(')[1].rstrip(')')} | {g['flops_per_s'] / 1e12:.1f} TFLOP/s | "
          f"{peaks[g['precision']] / 1e12:.1f} | {g['flops_per_s'] / peaks[g['precision']]:.0%} |")
    c = roof["device_copy"]
    p(f"| 1 GiB device-to-device copy (read + write) | {c['bytes_per_s_read_plus_write'] / 1e12:.2f} TB/s | "
      f"{sheet['memory_bytes_per_s']['value'] / 1e12:.2f} | "
      f"{c['bytes_per_s_read_plus_write'] / sheet['memory_bytes_per_s']['value']:.0%} |")
    p()

    # --- achieved TFLOP/s per layer kind and per model ---
    runs = [("googlenet b128 fp32", "call1/kernels/googlenet_b128_fp32"),
            ("inception_v3 b32 fp32", "call1/kernels/inception_v3_b32_fp32"),
            ("vgg19 b32 fp32", "call1/kernels/vgg19_b32_fp32"),
            ("resnet50 b64 fp32", "call1/kernels/resnet50_b64_fp32"),
            ("resnet50 b256 fp32 (11-29)", "../h200_2026-11-29/call1/kernels/resnet50_b256_fp32"),
            ("resnet50 b64 fp32 (call 2)", "call2/kernels/resnet50_b64_fp32"),
            ("resnet50 b64 bf16", "call2/kernels/resnet50_b64_bf16"),
            ("googlenet b128 bf16", "call3/kernels/googlenet_b128_bf16"),
            ("inception_v3 b32 bf16", "call3/kernels/inception_v3_b32_bf16"),
            ("vgg19 b32 bf16", "call3/kernels/vgg19_b32_bf16"),
            ("vgg19 b32 bf16 (11-29)", "../h200_2026-11-29/call1/kernels/vgg19_b32_bf16"),
            ("resnet50 b256 bf16", "call3/kernels/resnet50_b256_bf16")]
    sides = [(name, load(f"{run}/{path}.calibration.json")) for name, path in runs]
    derived = load("profiles/h200.json")
    measured = load("profiles/h200_measured.json")
    p("### Achieved TFLOP/s per layer kind (zoo FLOPs / the sum of each kind's kernel medians)\n")
    p("| kind | " + " | ".join(n for n, _ in sides) + " | derived h200 (fp32) | h200_measured (fp32) |")
    p("|---|" + "---:|" * (len(sides) + 2))
    for k in KINDS:
        row = [tf(s["achieved_flops_per_s_by_kind"].get(k)) for _, s in sides]
        d = derived["kind_efficiency"][k] * derived["peak_flops_per_s"]
        m = measured["kind_efficiency"][k] * measured["peak_flops_per_s"]
        p(f"| {k} | " + " | ".join(row) + f" | {tf(d)} | {tf(m)} |")
    p()
    p("### Per model: one iteration's kernels on one GPU\n")
    p("| run | layers | compute s (fwd + bwd, sum of medians) | achieved TFLOP/s | wall s of the calibration |")
    p("|---|---:|---:|---:|---:|")
    for name, s in sides:
        secs = per_kind_seconds(s)
        flops = sum(s["achieved_flops_per_s_by_kind"].get(k, 0) * v for k, v in secs.items())
        total = sum(secs.values())
        p(f"| {name} | {len(s['layers'])} | {total:.4f} | {flops / total / 1e12:.2f} | {s.get('wall_s', 0):.0f} |")
    p()

    # --- derived vs measured, as possim predicts one GPU's iteration ---
    tmp = tempfile.mkdtemp()

    def run_scenario(sc, profile, engine="analytic"):
        sc = dict(sc)
        sc["profile"] = profile
        path = os.path.join(tmp, "s.json")
        with open(path, "w") as f:
            json.dump(sc, f)
        out = os.path.join(tmp, "out")
        r = subprocess.run([a.possim, "run", path, "--engine", engine, "--out", out], cwd=ROOT,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"make.py: possim run failed: {r.stderr}")
        with open(os.path.join(out, "results.csv")) as f:
            return list(csv.DictReader(f))

    p("### One GPU: possim's iteration time with the derived profile, the measured one and the queued one\n")
    p("`possim run --engine analytic`, strategy `single`, 1 node of 1 GPU; the measured profile uses the "
      "timed layers themselves (its measured blocks); the queued one (`h200_queued`) the runs whose steps were "
      "timed, each scaled to its back-to-back step, and its refitted kind rates for the other points.\n")
    p("| model | batch | precision | derived h200: s | h200_measured: s | derived / measured | h200_queued: s | queued / measured |")
    p("|---|---:|---|---:|---:|---:|---:|---:|")
    for model, batch, prec in [("googlenet", 128, "fp32"), ("inception_v3", 32, "fp32"), ("vgg19", 32, "fp32"),
                               ("resnet50", 64, "fp32"), ("resnet50", 256, "fp32"), ("resnet50", 64, "amp_bf16"), ("googlenet", 128, "amp_bf16"),
                               ("inception_v3", 32, "amp_bf16"), ("vgg19", 32, "amp_bf16"),
                               ("resnet50", 256, "amp_bf16")]:
        sc = {"name": "one_gpu", "model": model, "batch_per_gpu": batch, "precision": prec,
              "cluster": {"nodes": [1], "nic_gbps": [100]}, "strategies": ["single"], "iterations": 3, "seed": 1}
        d = float(run_scenario(sc, "h200")[0]["iteration_s"])
        m = float(run_scenario(sc, "h200_measured")[0]["iteration_s"])
        q = float(run_scenario(sc, "h200_queued")[0]["iteration_s"])
        p(f"| {model} | {batch} | {prec} | {d:.4f} | {m:.4f} | {d / m:.2f} | {q:.4f} | {q / m:.2f} |")
    p()

    p("### scenarios/today with the H200's derived, measured and queued profiles\n")
    p("Each H100 scenario run with `\"profile\"` set to `h200` (datasheet-derived), to `h200_measured` and to "
      "`h200_queued`, `--engine analytic`: the measured and queued profiles' iteration times over the derived "
      "one's, over the scenario's points, and each strategy's images/s at its largest point.\n")
    p("| scenario | points | measured / derived iteration s: median (min-max) | queued / derived: median (min-max) | at the largest point: strategy images/s derived -> measured -> queued |")
    p("|---|---:|---|---|---|")
    for name in ["h100_resnet50", "h100_resnet50_amp", "h100_resnet50_rails", "h100_fc_stack_3b"]:
        sc = load(f"scenarios/today/{name}.json")
        if isinstance(sc.get("model"), str) and sc["model"].endswith(".json"):
            sc["model"] = os.path.join(ROOT, "scenarios", "today", sc["model"])
        d = run_scenario(sc, "h200")
        m = run_scenario(sc, "h200_measured")
        q = run_scenario(sc, "h200_queued")
        ratios = [float(y["iteration_s"]) / float(x["iteration_s"]) for x, y in zip(d, m)]
        queued = [float(y["iteration_s"]) / float(x["iteration_s"]) for x, y in zip(d, q)]
        big = max(int(x["nodes"]) for x in d)
        fast = max(float(x["nic_gbps"]) for x in d)
        last = [f"{x['strategy']} {float(x['images_per_s']):.0f} -> {float(y['images_per_s']):.0f} -> {float(z['images_per_s']):.0f}"
                for x, y, z in zip(d, m, q) if int(x["nodes"]) == big and float(x["nic_gbps"]) == fast]
        p(f"| {name} | {len(ratios)} | {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) | "
          f"{statistics.median(queued):.2f} ({min(queued):.2f}-{max(queued):.2f}) | "
          f"{big} nodes, {fast:g} Gbit/s: " + "; ".join(last) + " |")
    p()

    # --- interference ---
    inter = load(f"{run}/call2/interference.json")
    p("### Compute/communication interference (bench/gpu_interference.py, call 2)\n")
    p(f"{inter['device']}, {inter['sms']} SMs; CUDA events, median of {inter['trials']} interleaved trials. "
      "`slowdown` = time beside the other stream's loop / time alone. 'covered': the background loop ran "
      "throughout (rows without it understate the slowdown).\n")
    p("| GEMM | beside | GEMM TFLOP/s alone -> beside | GEMM slowdown | other GB/s alone -> beside GEMM | other slowdown | covered |")
    p("|---|---|---|---:|---|---:|---|")
    for c in inter["cases"]:
        p(f"| {c['gemm']} | {c['other']} | {c['gemm_alone_tflops']:.0f} -> {c['gemm_with_other_tflops']:.0f} | "
          f"{c['gemm_slowdown']:.3f} | {c['other_alone_gb_per_s']:.0f} -> {c['other_with_gemm_gb_per_s']:.0f} | "
          f"{c['other_slowdown']:.2f} | {'yes' if c['covered'] else 'no'} |")
    p()
    for title, path in [("call 2, resnet50 b64 fp32", os.path.join(run, "call2")),
                        ("2026-11-29, vgg19 b32 bf16", os.path.join(run, "..", "h200_2026-11-29", "call1")),
                        ("2026-11-29 call 2, resnet50 b64 bf16", os.path.join(run, "..", "h200_2026-11-29", "call2")),
                        ("2026-11-30, resnet50 b64 bf16", os.path.join(run, "..", "h200_2026-11-30", "call1")),
                        ("2026-11-30 call 2, inception_v3 b32 bf16", os.path.join(run, "..", "h200_2026-11-30", "call2"))]:
        p(f"### The live point (`possim validate --live`, {title})\n")
        p("```")
        with open(os.path.join(ROOT, path, "validate_live.txt")) as f:
            p("\n".join(line.rstrip() for line in f if not line.startswith("possim live:")).strip())
        p("```")
        p()

    day = os.path.join(run, "..", "h200_2026-11-30")
    # Where each point's steps were timed, and the live step of the same kernels where one
    # ran (that call's live point, or an earlier call's; None: none in that precision).
    steps = {"resnet50_b64_fp32": "call1", "resnet50_b64_bf16": "call1", "vgg19_b32_bf16": "call1",
             "inception_v3_b32_fp32": "call2", "inception_v3_b32_bf16": "call2", "googlenet_b128_bf16": "call2"}
    live = {"resnet50_b64_bf16": os.path.join(day, "call1"),
            "vgg19_b32_bf16": os.path.join(run, "..", "h200_2026-11-29", "call1"),
            "resnet50_b64_fp32": os.path.join(run, "call2"),
            "inception_v3_b32_bf16": os.path.join(day, "call2"),
            "inception_v3_b32_fp32": None, "googlenet_b128_bf16": None}
    p("### One step four ways (`calibrate kernels --step-repeats 10`, 2026-11-30, calls 1 and 2)\n")
    p("The same kernels: their medians timed one by one and summed (what a measured profile holds, and what "
      "possim predicts a step from); whole steps on the prepared layers with every pass waited for before the "
      "next is launched (how possim's live kernels run) and back to back, queued with one wait at the end (how "
      "a framework runs a step); and the live step of `possim validate --live` (1 node). Medians of 10 steps "
      "(host wall clock); `%` against the summed medians.\n")
    p("| point | kernels' medians summed ms | each pass waited for ms | back to back ms | live step ms (call) |")
    p("|---|---:|---:|---:|---:|")
    for name, where in steps.items():
        st = load(os.path.join(day, where, "kernels", name + ".calibration.json"))["step"]
        k = st["kernels_sum_s"]
        lv = "-"
        if live[name]:
            t = load(os.path.join(live[name], "validate_live.json"))["points"][0]["measured_iteration_s"]
            call = os.path.relpath(os.path.normpath(os.path.join(ROOT, live[name])), os.path.join(ROOT, "traces", "gpu"))
            lv = f"{t * 1e3:.1f} ({100 * (t / k - 1):+.1f}%, {call})"
        p(f"| {name.replace('_', ' ')} | {k * 1e3:.1f} | {st['waited_s'] * 1e3:.1f} ({100 * (st['waited_s'] / k - 1):+.1f}%) | "
          f"{st['back_to_back_s'] * 1e3:.1f} ({100 * (st['back_to_back_s'] / k - 1):+.1f}%) | {lv} |")
    p()
    held_out(a.possim, day, steps, run_scenario, tmp, p)


def held_out(possim, day, steps, run_scenario, tmp, p):
    """Each model's steps predicted by a profile made without it (its blocks and its kind rates):
    the runs with steps timed chained by traces/gpu/chain_profile.sh, the model left out, with
    and without --queued-step; against the run's back-to-back step and its summed medians."""
    order = ["inception_v3_b32_fp32", "resnet50_b64_fp32", "googlenet_b128_bf16", "inception_v3_b32_bf16",
             "vgg19_b32_bf16", "resnet50_b64_bf16"]

    def chain(runs, queued, tag):
        out = os.path.join(tmp, tag + ".json")
        sides = [os.path.join(day, steps[name], "kernels", name) for name in runs]
        r = subprocess.run(["sh", os.path.join(ROOT, "traces", "gpu", "chain_profile.sh"), out, "h200",
                            os.path.join(day, "..", "h200_2026-11-27", "call1", "roofline.json")]
                           + (["--queued-step"] if queued else []) + ["--"] + sides,
                           cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, POSSIM=possim))
        if r.returncode != 0:
            sys.exit(f"make.py: traces/gpu/chain_profile.sh failed: {r.stderr}")
        return out

    def iteration(name, profile):
        model, b, prec = name.split("_b")[0], int(name.split("_b")[1].split("_")[0]), name.split("_")[-1]
        sc = {"name": "one_gpu", "model": model, "batch_per_gpu": b, "precision": "amp_bf16" if prec == "bf16" else prec,
              "cluster": {"nodes": [1], "nic_gbps": [100]}, "strategies": ["single"], "iterations": 3, "seed": 1}
        return float(run_scenario(sc, profile)[0]["iteration_s"])

    full = {q: chain(order, q, f"all_{q}") for q in (True, False)}
    without = {}  # (model, queued): the chain without that model, made once for its runs
    p("### Held out: a model's step predicted by a profile made without it\n")
    p("The six runs above with steps timed, chained into a profile as `traces/gpu/h200_2026-11-30/"
      "make_queued_profile.sh` does, leaving out one model (its measured blocks and the kind rates its runs "
      "fitted): its steps then come from the other models' kind rates. *queued*: every run scaled to its "
      "back-to-back step (`--queued-step`), the prediction against that step; *one by one*: the kernels' "
      "medians as timed, against their sum. Each prediction is possim's one-GPU iteration (`run --engine "
      "analytic`, `single`) less the optimizer step, taken as the full chain's iteration less the run's own "
      "block.\n")
    p("| run held out | queued: predicted ms | back to back ms | error | one by one: predicted ms | medians summed ms | error |")
    p("|---|---:|---:|---:|---:|---:|---:|")
    errors = {True: [], False: []}
    for name in order:
        model = name.split("_b")[0]
        st = load(os.path.join(day, steps[name], "kernels", name + ".calibration.json"))["step"]
        cells = []
        for q in (True, False):
            own = st["back_to_back_s"] if q else st["kernels_sum_s"]
            if (model, q) not in without:
                without[model, q] = chain([n for n in order if not n.startswith(model + "_")], q, f"{model}_{q}")
            # The full chain's iteration holds the run's own block: the rest is the optimizer step.
            predicted = iteration(name, without[model, q]) - (iteration(name, full[q]) - own)
            errors[q].append(abs(predicted / own - 1))
            cells.append(f"{predicted * 1e3:.1f} | {own * 1e3:.1f} | {100 * (predicted / own - 1):+.1f}%")
        p(f"| {name.replace('_', ' ')} | " + " | ".join(cells) + " |")
    p(f"| mean absolute error | | | {100 * statistics.mean(errors[True]):.1f}% | | | {100 * statistics.mean(errors[False]):.1f}% |")
    p()


if __name__ == "__main__":
    main()
