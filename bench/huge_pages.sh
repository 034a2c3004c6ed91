#!/usr/bin/env bash
# What 2 MiB pages save (model/run/memory.hpp, cli/restart_with_modules.cpp): each command
# with POSSIM_HUGE_PAGES=0 (the kernel's 4 KiB pages) and without (possim's default: the
# analytic process's first 8 MiB of heap, and the SimGrid process's whole heap through
# glibc.malloc.hugetlb=1, in transparent huge pages), runs interleaved: median wall ms,
# minor page faults, peak RSS, and whether results.csv is byte-identical. First, what one
# first touch of a fresh 4 KiB page costs on this machine.
# Usage: bench/huge_pages.sh [RUNS] [SIMGRID_NODES...]   (default 31 runs; 1024 4096)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-31}
shift || true
nodes=("$@")
[ ${#nodes[@]} -ge 1 ] || nodes=(1024 4096)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 - "$runs" "$out" "${nodes[@]}" <<'PY'
import mmap, os, statistics, subprocess, sys, time
runs, out, nodes = int(sys.argv[1]), sys.argv[2], [int(n) for n in sys.argv[3:]]
possim = 'build/cli/possim'

def touch_us_per_page(pages=4096):  # first touch of fresh anonymous 4 KiB pages
    m = mmap.mmap(-1, pages * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    t = time.perf_counter()
    for i in range(pages):
        m[i * 4096] = 1
    return (time.perf_counter() - t) / pages * 1e6

def one(cmd, small, folder):
    env = dict(os.environ)
    if small:
        env['POSSIM_HUGE_PAGES'] = '0'
    else:
        env.pop('POSSIM_HUGE_PAGES', None)
    stats = os.path.join(out, 'stats')
    t = time.perf_counter()
    subprocess.run(['/usr/bin/time', '-f', '%M %R', '-o', stats] + cmd + ['--out', folder],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    wall = time.perf_counter() - t
    rss_kb, faults = open(stats).read().split()[-2:]
    return wall * 1e3, int(rss_kb) / 1024, int(faults)

def scenario(strategy, n):
    path = os.path.join(out, f'{strategy}_{n}.json')
    with open(path, 'w') as f:
        f.write('{ "name": "%s_%d", "description": "huge_pages point", "model": "vgg19_22k", "batch_per_gpu": 32,'
                ' "cluster": { "nodes": [%d], "gpus_per_node": 1, "nic_gbps": [40], "latency_s": 50e-6,'
                ' "servers": { "shards": "per_node", "placement": "colocated" } }, "strategies": ["%s"],'
                ' "strategy_options": { "kv_pair_bytes": 2097152, "consistency": "bsp", "staleness": 0,'
                ' "best_scheme": "atc17", "stragglers": { "kind": "none", "drop_after": 0 } },'
                ' "profile": "titanx_maxwell", "iterations": 10, "seed": 1 }' % (strategy, n, n, strategy))
    return path

answer = [possim, 'run', 'scenarios/vgg19_10gbe.json', '-q', '--engine', 'analytic']
rows = [('analytic, vgg19_10gbe.json --no-interval --jobs 1', answer + ['--no-interval', '--jobs', '1'], runs),
        ('analytic, vgg19_10gbe.json (95% intervals) --jobs 1', answer + ['--jobs', '1'], runs),
        ('analytic, vgg19_10gbe.json (95% intervals), default jobs', answer, runs)]
for n in nodes:
    for strategy in ('ps', 'wfbp', 'poseidon'):
        rows.append((f'SimGrid, VGG19-22K {strategy} {n:,} nodes full (--no-reduce)',
                     [possim, 'run', scenario(strategy, n), '--engine', 'simgrid', '--no-reduce', '--no-interval',
                      '-q', '-j', '1'], 2 if n >= 4096 else 3))

commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
cpu = [l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')][0]
thp = open('/sys/kernel/mm/transparent_hugepage/enabled').read().strip()
print('# 4 KiB or 2 MiB pages: one possim process, wall time\n')
print(f"{time.strftime('%Y-%m-%d', time.gmtime())}, commit {commit}, {os.cpu_count()} cores ({cpu}), "
      f"transparent_hugepage/enabled: {thp}; first touch of a fresh 4 KiB page: "
      f"{statistics.median(touch_us_per_page() for _ in range(5)):.1f} us (median of 5 x 4,096 pages)\n")
print('small = POSSIM_HUGE_PAGES=0; huge = the default. Runs interleaved (small, huge, small, ...).\n')
print('| command | runs | small ms | huge ms | huge / small | faults small | faults huge | peak RSS MiB small | huge | results.csv |')
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|')
for name, cmd, n in rows:
    got = {True: [], False: []}
    for _ in range(n):
        for small in (True, False):
            got[small].append(one(cmd, small, os.path.join(out, 'small' if small else 'huge')))
    same = open(os.path.join(out, 'small', 'results.csv'), 'rb').read() == open(os.path.join(out, 'huge', 'results.csv'), 'rb').read()
    med = lambda xs, i: statistics.median(x[i] for x in xs)
    s, h = med(got[True], 0), med(got[False], 0)
    print(f'| {name} | {n} | {s:.1f} | {h:.1f} | {h / s:.2f} | {med(got[True], 2):.0f} | {med(got[False], 2):.0f} | '
          f'{med(got[True], 1):.0f} | {med(got[False], 1):.0f} | {"identical" if same else "DIFFERENT"} |', flush=True)
PY
