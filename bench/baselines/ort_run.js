#!/usr/bin/env node
// ONNX Runtime baseline for bench/run.sh e2e: one model, CPU execution provider, N intra-op
// threads, one inter-op thread, every graph optimization on.
//
//   node bench/baselines/ort_run.js --model M.onnx --threads N
//        [--input IN.bin | --seed S --write-input IN.bin] [--output OUT.bin]
//        [--runs 20] [--warmup 3] [--min-seconds 1]
//
// --input reads the model's one input as raw little-endian float32 (shape from the model);
// without it the input is drawn from a seeded normal distribution and, with --write-input,
// saved so the other runners can reuse it. After the warm-up runs it times at least --runs
// runs (and keeps going, up to 500, until --min-seconds have passed) and prints one JSON line
//   {"ms": median, "runs": n, "threads": N, "min_ms": ..., "max_ms": ..., "ort": "1.30.0"}
// --output writes the first output as raw little-endian float32.
// onnxruntime-node is looked up in build/bench_node/ (scripts/setup_bench.sh installs it
// there) or TESSERA_BENCH_NODE.
'use strict';
const fs = require('fs');
const path = require('path');
const { performance } = require('perf_hooks');

function usage(msg) {
  if (msg) process.stderr.write(`ort_run: ${msg}\n`);
  process.stderr.write('usage: ort_run.js --model M.onnx --threads N [--input IN.bin | ' +
                       '--seed S --write-input IN.bin] [--output OUT.bin] [--runs R] ' +
                       '[--warmup W] [--min-seconds S]\n');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { threads: 1, runs: 20, warmup: 3, minSeconds: 1, seed: 0 };
  const names = { '--model': 'model', '--threads': 'threads', '--input': 'input',
                  '--write-input': 'writeInput', '--output': 'output', '--runs': 'runs',
                  '--warmup': 'warmup', '--min-seconds': 'minSeconds', '--seed': 'seed' };
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

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const ort = loadOrt();
  const session = await ort.InferenceSession.create(a.model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
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
}

main().catch((e) => {
  process.stderr.write(`ort_run: ${e && e.message ? e.message : e}\n`);
  process.exit(1);
});
