#!/usr/bin/env python3
"""Compute/communication interference on one GPU (issue 28 item 3a), measured on a lent GPU.

While a collective overlaps the backward pass, its kernel shares the GPU with the compute
kernels: NCCL's ring kernel runs on nChannels CTAs (one SM each) reading two buffers and
writing one, so it takes SMs and memory bandwidth from a GEMM, and the GEMM takes them from it.
One GPU cannot run NCCL between ranks, so this measures the same contention with a stand-in:
a reduce-copy kernel (c = a + b, fp32, 16-byte accesses) launched on CHANNELS CTAs of 512
threads, the shape of one ring step's work, beside a long GEMM on another stream. And a
copy-engine transfer (pinned host to device, the staging copy of a PCIe path; device to device)
beside the same GEMM, which takes no SM.

Each case is timed twice with CUDA events, medians of TRIALS: the GEMM loop while the
other stream's loop runs throughout (the GEMM's slowdown), and the other loop while GEMM runs
throughout (its slowdown). "covered" says the background loop did outlast the foreground one.
Writes one JSON file; prints a table. Needs PyTorch and CuPy (the lent machines' image has both).
"""
import argparse
import json
import statistics
import sys
import time

SRC = r"""
extern "C" __global__ void reduce_copy(const float4* __restrict__ a, const float4* __restrict__ b,
                                       float4* __restrict__ c, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--span-ms", type=float, default=40.0, help="foreground loop length")
    args = ap.parse_args()

    import torch
    import cupy

    if not torch.cuda.is_available():
        print("gpu_interference: no CUDA device", file=sys.stderr)
        return 2
    t_start = time.time()
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    torch.backends.cuda.matmul.allow_tf32 = True
    gen = torch.Generator(device=dev).manual_seed(1)

    # The compute side: square GEMMs long enough to fill the chip (random data, not zeros).
    gemms = {}
    for name, dtype, n in (("bf16_8192", torch.bfloat16, 8192), ("tf32_8192", torch.float32, 8192)):
        a = torch.randn(n, n, device=dev, dtype=dtype, generator=gen)
        b = torch.randn(n, n, device=dev, dtype=dtype, generator=gen)
        c = torch.empty(n, n, device=dev, dtype=dtype)
        gemms[name] = (lambda s, a=a, b=b, c=c: torch.matmul(a, b, out=c), 2.0 * n ** 3)

    # The communication side: the reduce-copy stand-in on a chosen number of CTAs.
    mod = cupy.RawModule(code=SRC)
    kern = mod.get_function("reduce_copy")
    elems = 64 << 20  # 64 Mi floats = 256 MiB per buffer, far beyond L2
    rs = cupy.random.RandomState(2)
    xa = rs.standard_normal(elems, dtype=cupy.float32)
    xb = rs.standard_normal(elems, dtype=cupy.float32)
    xc = cupy.full(elems, cupy.nan, dtype=cupy.float32)
    n4 = elems // 4
    cupy.cuda.Device().synchronize()

    def reduce_copy(stream, ctas):
        with cupy.cuda.ExternalStream(stream.cuda_stream):
            kern((ctas,), (512,), (xa, xb, xc, cupy.uint64(n4)))

    # Check the stand-in computes c = a + b everywhere (poisoned with NaN before).
    s0 = torch.cuda.Stream()
    reduce_copy(s0, 16)
    s0.synchronize()
    err = float(cupy.max(cupy.abs(xc - (xa + xb))))
    if not err == 0.0:
        print(f"gpu_interference: reduce-copy wrong (max error {err})", file=sys.stderr)
        return 1
    rc_bytes = 3 * elems * 4

    host = torch.randn(256 << 20, dtype=torch.float32).pin_memory()  # 1 GiB pinned
    devbuf = torch.empty(256 << 20, dtype=torch.float32, device=dev)
    devbuf2 = torch.randn(256 << 20, dtype=torch.float32, device=dev, generator=gen)

    def others():
        out = []
        for ctas in (8, 16, 32, sms):
            out.append((f"reduce_copy_{ctas}cta", lambda s, k=ctas: reduce_copy(s, k), rc_bytes, ctas))
        out.append(("h2d_pinned_1GiB", lambda s: devbuf.copy_(host, non_blocking=True), host.numel() * 4, 0))
        out.append(("d2d_copy_1GiB", lambda s: devbuf.copy_(devbuf2, non_blocking=True), 2 * devbuf.numel() * 4, 0))
        return out

    def span(fn, stream, count):
        """Time `count` launches of fn on stream, alone; ms."""
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        with torch.cuda.stream(stream):
            e0.record(stream)
            for _ in range(count):
                fn(stream)
            e1.record(stream)
        torch.cuda.synchronize()
        return e0.elapsed_time(e1)

    def call(fn, stream):
        with torch.cuda.stream(stream):
            fn(stream)

    def together(fg, fg_n, bg, bg_n, s_fg, s_bg):
        """fg's span while bg runs on another stream; and whether bg outlasted it."""
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
        torch.cuda.synchronize()
        with torch.cuda.stream(s_bg):
            ev[2].record(s_bg)
            for _ in range(bg_n):
                call(bg, s_bg)
            ev[3].record(s_bg)
        with torch.cuda.stream(s_fg):
            ev[0].record(s_fg)
            for _ in range(fg_n):
                call(fg, s_fg)
            ev[1].record(s_fg)
        torch.cuda.synchronize()
        fg_ms = ev[0].elapsed_time(ev[1])
        covered = ev[2].elapsed_time(ev[0]) >= 0 and ev[1].elapsed_time(ev[3]) >= 0
        return fg_ms, covered

    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    # Steady clocks first: a second of GEMMs (the first measurements otherwise run slower).
    warm_end = time.time() + 1.0
    while time.time() < warm_end:
        span(gemms["bf16_8192"][0], s1, 20)
    results = []
    for gname, (gfn, gflop) in gemms.items():
        for _ in range(3):
            call(gfn, s1)
        one = span(gfn, s1, 5) / 5
        g_n = max(3, int(args.span_ms / one))
        for oname, ofn, obytes, ctas in others():
            call(ofn, s2)
            one_o = span(ofn, s2, 3) / 3
            o_n = max(3, int(args.span_ms / one_o))
            # Interleaved, trial by trial, so that clock drift falls on both sides of a ratio.
            # The background runs 4x (other) or 6x (GEMM, which delays the other most) as long.
            trials = []
            for _ in range(args.trials):
                g_alone = span(gfn, s1, g_n)
                g_conc, g_cov = together(gfn, g_n, ofn, 4 * o_n + 2, s1, s2)
                o_alone = span(ofn, s2, o_n)
                o_conc, o_cov = together(ofn, o_n, gfn, 6 * g_n + 2, s2, s1)
                trials.append((g_alone, g_conc, o_alone, o_conc, g_cov and o_cov))
            med = lambda i: statistics.median(t[i] for t in trials)
            row = {
                "gemm": gname, "other": oname, "ctas": ctas,
                "gemm_alone_tflops": gflop * g_n / med(0) / 1e9,
                "gemm_with_other_tflops": gflop * g_n / med(1) / 1e9,
                "gemm_slowdown": statistics.median(t[1] / t[0] for t in trials),
                "other_alone_gb_per_s": obytes * o_n / med(2) / 1e6,
                "other_with_gemm_gb_per_s": obytes * o_n / med(3) / 1e6,
                "other_slowdown": statistics.median(t[3] / t[2] for t in trials),
                "covered": all(t[4] for t in trials),
                "gemm_launches": g_n, "other_launches": o_n,
                "trials_ms": [[round(x, 3) for x in t[:4]] for t in trials],
            }
            results.append(row)
            print(f"{gname:10} + {oname:18} gemm {row['gemm_alone_tflops']:7.1f} -> {row['gemm_with_other_tflops']:7.1f} "
                  f"TFLOP/s (x{row['gemm_slowdown']:.3f})   other {row['other_alone_gb_per_s']:7.1f} -> "
                  f"{row['other_with_gemm_gb_per_s']:7.1f} GB/s (x{row['other_slowdown']:.3f})"
                  f"{'' if row['covered'] else '   (not covered)'}", flush=True)

    doc = {
        "what": "compute/communication interference on one GPU: a GEMM beside a reduce-copy stand-in "
                "for NCCL's ring kernel on CTAS CTAs, and beside copy-engine transfers",
        "device": props.name, "sms": sms, "torch": torch.__version__, "cupy": cupy.__version__,
        "trials": args.trials, "span_ms": args.span_ms, "timing": "CUDA events, medians",
        "seconds": time.time() - t_start, "cases": results,
    }
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
