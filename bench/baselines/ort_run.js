#!/usr/bin/env node
// ONNX Runtime baseline for bench/run.sh e2e: one model, CPU execution provider, N intra-op
// threads, one inter-op thread, every graph optimization on.
//
//   node bench/baselines/ort_run.js --model M.onnx --threads N
//        [--input IN.bin | --seed S --write-input IN.bin] [--output OUT.bin]
//        [--runs 20] [--warmup 3] [--min-seconds 1] [--profile NODES.json]
//
// --input reads the model's one input as raw little-endian float32 (shape from the model);
// without it the input is drawn from a seeded normal distribution and, with --write-input,
// saved so the other runners can reuse it. After the warm-up runs it times at least --runs
// runs (and keeps going, up to 500, until --min-seconds have passed) and prints one JSON line
//   {"ms": median, "runs": n, "threads": N, "min_ms": ..., "max_ms": ..., "ort": "1.30.0"}
// --output writes the first output as raw little-endian float32.
// --profile writes where ORT's time goes, per node, to NODES.json: after the timed runs, a
// second session with ORT's profiler on runs --runs more inferences, and each node's median
// kernel time over them is listed, slowest first, as {"node", "op", "input_shapes",
// "output_shapes", "median_us", "share"} (share: of the summed node medians). The profiled
// session is separate so that profiling never slows the timed runs. Compare with the per-task
// table of `tessera run MODEL.onnx --threads 1` to find the kernels that hold a network back.
// onnxruntime-node is looked up in build/bench_node/ (scripts/setup_bench.sh installs it
// there) or TESSERA_BENCH_NODE.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { performance } = require('perf_hooks');

function usage(msg) {
  if (msg) process.stderr.write(`ort_run: ${msg}\n`);
  process.stderr.write('usage: ort_run.js --model M.onnx --threads N [--input IN.bin | ' +
                       '--seed S --write-input IN.bin] [--output OUT.bin] [--runs R] ' +
                       '[--warmup W] [--min-seconds S] [--profile NODES.json]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { threads: 1, runs: 20, warmup: 3, minSeconds: 1, seed: 0 };
  const names = { '--model': 'model', '--threads': 'threads', '--input': 'input',
                  '--write-input': 'writeInput', '--output': 'output', '--runs': 'runs',
                  '--warmup': 'warmup', '--min-seconds': 'minSeconds', '--seed': 'seed',
                  '--profile': 'profile' };
  for (let i = 0; i < argv.length; i += 2) {
    const key = names[argv[i]];
    if (!key || i + 1 >= argv.length) usage(`bad argument ${argv[i]}`);
    a[key] = argv[i + 1];
  }
  if (!a.model) usage('--model is required');
  for (const k of ['threads', 'runs', 'warmup', 'seed']) {
    a[k] = Number.parseInt(a[k], 10);
    if (!Number.isFinite(a[k]) || a[k] < 0) usage(`--${k} must be a non-negative integer`);
  }
  a.minSeconds = Number(a.minSeconds);
  if (a.threads < 1) usage('--threads must be at least 1');
  if (a.runs < 20) usage('--runs must be at least 20');
  return a;
}

// mulberry32 + Box-Muller: a standard normal stream that depends only on the seed.
function normalStream(seed) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => {
    const u = 1 - uniform();  // (0, 1]
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * uniform());
  };
}

function loadOrt() {
  const root = path.resolve(__dirname, '..', '..');
  const dir = process.env.TESSERA_BENCH_NODE || path.join(root, 'build', 'bench_node');
  try {
    return require(require.resolve('onnxruntime-node', { paths: [dir] }));
  } catch (e) {
    process.stderr.write(`ort_run: onnxruntime-node not found under ${dir} ` +
                         '(scripts/setup_bench.sh installs it)\n');
    process.exit(1);
  }
}

function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function sessionOptions(a, profilePrefix) {
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  if (profilePrefix) Object.assign(options, { enableProfiling: true, profileFilePrefix: profilePrefix });
  return options;
}

// Runs `runs` profiled inferences in a session of its own and writes each node's median
// kernel time (ORT's "Node" events named *_kernel_time) to `outPath`.
async function profileNodes(ort, a, feeds, outPath) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort_profile_'));
  const session = await ort.InferenceSession.create(a.model, sessionOptions(a, path.join(dir, 'ort')));
  for (let i = 0; i < a.warmup + a.runs; ++i) await session.run(feeds);
  session.endProfiling();
  await session.release();
  const traces = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  if (traces.length !== 1) throw new Error(`--profile: expected one ORT trace in ${dir}, found ${traces.length}`);
  const events = JSON.parse(fs.readFileSync(path.join(dir, traces[0]), 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  const byNode = new Map();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const node = e.name.slice(0, -'_kernel_time'.length);
    if (!byNode.has(node)) {
      const shapes = (list) => (list || []).map((t) => Object.values(t)[0]);
      byNode.set(node, { node, op: e.args.op_name, input_shapes: shapes(e.args.input_type_shape),
                         output_shapes: shapes(e.args.output_type_shape), times: [] });
    }
    byNode.get(node).times.push(e.dur);
  }
  // The first warm-up runs are in the trace too: keep each node's last `runs` calls.
  const nodes = [...byNode.values()].map(({ times, ...n }) => ({ ...n, median_us: median(times.slice(-a.runs)) }));
  const total = nodes.reduce((s, n) => s + n.median_us, 0);
  for (const n of nodes) n.share = total > 0 ? Math.round((n.median_us / total) * 10000) / 10000 : 0;
  nodes.sort((x, y) => y.median_us - x.median_us);
  fs.writeFileSync(outPath, JSON.stringify(nodes, null, 1) + '\n');
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const ort = loadOrt();
  const session = await ort.InferenceSession.create(a.model, sessionOptions(a, null));
  if (session.inputNames.length !== 1) {
    throw new Error(`${a.model} has ${session.inputNames.length} inputs; one is supported`);
  }
  const meta = session.inputMetadata && session.inputMetadata[0];
  if (!meta || !meta.shape || meta.shape.some((d) => typeof d !== 'number' || d < 1)) {
    throw new Error(`${a.model}: the input needs a static shape`);
  }
  if (meta.type !== 'float32') throw new Error(`${a.model}: the input is ${meta.type}, not float32`);
  const count = meta.shape.reduce((x, y) => x * y, 1);

  let data;
  if (a.input) {
    const buf = fs.readFileSync(a.input);
    if (buf.length !== count * 4) {
      throw new Error(`${a.input} holds ${buf.length} bytes; input ${session.inputNames[0]} ` +
                      `[${meta.shape}] needs ${count * 4}`);
    }
    data = new Float32Array(count);
    for (let i = 0; i < count; ++i) data[i] = buf.readFloatLE(i * 4);
  } else {
    const next = normalStream(a.seed);
    data = new Float32Array(count);
    for (let i = 0; i < count; ++i) data[i] = next();
    if (a.writeInput) {
      const out = Buffer.alloc(count * 4);
      for (let i = 0; i < count; ++i) out.writeFloatLE(data[i], i * 4);
      fs.writeFileSync(a.writeInput, out);
    }
  }
  const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, meta.shape) };

  let result;
  for (let i = 0; i < a.warmup; ++i) result = await session.run(feeds);
  const times = [];
  const start = performance.now();
  while (times.length < a.runs ||
         (times.length < 500 && performance.now() - start < a.minSeconds * 1000)) {
    const t0 = performance.now();
    result = await session.run(feeds);
    times.push(performance.now() - t0);
  }

  if (a.output) {
    const out = result[session.outputNames[0]];
    if (out.type !== 'float32') throw new Error(`output ${session.outputNames[0]} is ${out.type}`);
    const buf = Buffer.alloc(out.data.length * 4);
    for (let i = 0; i < out.data.length; ++i) buf.writeFloatLE(out.data[i], i * 4);
    fs.writeFileSync(a.output, buf);
  }
  let version = null;
  try { version = ort.env.versions.common; } catch (e) { /* older packages lack it */ }
  const round = (x) => Math.round(x * 1000) / 1000;
  console.log(JSON.stringify({ ms: round(median(times)), runs: times.length, threads: a.threads,
                               min_ms: round(Math.min(...times)),
                               max_ms: round(Math.max(...times)), ort: version }));
  await session.release();
  if (a.profile) await profileNodes(ort, a, feeds, a.profile);
}

main().catch((e) => {
  process.stderr.write(`ort_run: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
