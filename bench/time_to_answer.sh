#!/usr/bin/env bash
# Time to answer (issue 27 item 2): wall time of one whole possim process, median of RUNS
# (default 30) runs: --version (the dynamic loader's and static initialisers' share), and
# scenarios/vgg19_10gbe.json on the analytic engine (the closed form, one process) and on
# SimGrid (which opens its module), each with and without the 95% intervals of its fitted
# profile; the analytic answer also with --all-iterations (every iteration scheduled, where
# by default iteration 0 stands for those that repeat it). Also the shared libraries each
# process maps (none: possim is linked statically; a command that opens the SimGrid module
# restarts as possim-modules, its dynamically linked twin).
# Usage: bench/time_to_answer.sh [RUNS] [POSSIM]   (default build/cli/possim)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
possim=${2:-build/cli/possim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
python3 - "$runs" "$possim" "$out" <<'PY'
import os, statistics, subprocess, sys, time
runs, possim, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def wall(cmd, n):
    xs = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        xs.append(time.perf_counter() - t)
    return statistics.median(xs) * 1e3
def mapped(exe):  # shared objects the dynamic loader maps at start: none for a static program
    r = subprocess.run(['ldd', exe], capture_output=True, text=True)
    return len([l for l in r.stdout.splitlines() if l.strip()]) if r.returncode == 0 else 0
libs = mapped(possim)
twin = os.path.join(os.path.dirname(possim), 'possim-modules')
# titanx_maxwell is a fitted profile: a run also reruns the scenario at its covariance's sigma
# points for the 95% intervals (2 per principal axis); --no-interval is the answer alone.
run = [possim, 'run', 'scenarios/vgg19_10gbe.json', '-q', '--jobs', '1']
rows = [('possim --version', [possim, '--version'], runs),
        ('run vgg19_10gbe.json --engine analytic --no-interval (24 points)',
         run + ['--engine', 'analytic', '--no-interval', '--out', out + '/a0'], runs),
        ('run vgg19_10gbe.json --engine analytic --no-interval --all-iterations (each of 5 iterations scheduled)',
         run + ['--engine', 'analytic', '--no-interval', '--all-iterations', '--out', out + '/a1'], runs),
        ('run vgg19_10gbe.json --engine analytic (24 points, 95% intervals)',
         run + ['--engine', 'analytic', '--out', out + '/a'], runs),
        ('run vgg19_10gbe.json --no-interval (SimGrid, 24 points)',
         run + ['--no-interval', '--out', out + '/s0'], max(3, runs // 10)),
        ('run vgg19_10gbe.json (SimGrid, 24 points, 95% intervals)',
         run + ['--out', out + '/s'], max(3, runs // 10))]
commit = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
cpu = [l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')][0]
print('# Time to answer: one possim process, wall time\n')
print(f"{time.strftime('%Y-%m-%d', time.gmtime())}, commit {commit}, {len(open('/proc/cpuinfo').read().split('processor')) - 1} cores ({cpu}); "
      f"{possim} maps {libs} shared objects at start (ldd)"
      + (f"; the SimGrid rows restart it as {twin}, which maps {mapped(twin)} (cli/restart_with_modules.cpp)" if os.path.exists(twin) else "")
      + "\n")
print('| command | runs | median wall ms |')
print('|---|---|---|')
for name, cmd, n in rows:
    print(f'| `{name}` | {n} | {wall(cmd, n):.1f} |')
PY
