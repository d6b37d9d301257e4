#!/usr/bin/env node
// Joins one model's and thread count's runs into bench/run.sh e2e's JSON line (bench/e2e.sh
// calls it). Each runner's result is given as the files holding its stdout, one per round,
// comma-separated (the last JSON line of each is the result; the round with the lowest median
// counts), the error its rounds reported (a runner with one is null) and the raw float32 file
// its first output went to:
//
//   node bench/baselines/e2e_line.js --case C --model M --threads N --cpu CPU
//        --ort-json J --ort-out F [--ort-error E]
//        --libtorch-json J --libtorch-out F [--libtorch-error E]
//        --tessera-json J --tessera-out F [--tessera-error E]
//
// Prints {"case", "model", "threads", "cpu", "openblas_core", "tessera_ms", "ort_ms", "libtorch_ms",
// "ratio_vs_ort" (ORT ms / Tessera ms), "ratio_vs_libtorch" (LibTorch ms / Tessera ms),
// "max_abs_error_vs_ort" (Tessera's output against ORT's), "libtorch_max_abs_error_vs_ort",
// "ort_output_max_abs" (the scale those errors compare with), "tasks", "schedules", ...};
// a value that could not be measured is null, and "error" says why.
'use strict';
const fs = require('fs');

const args = {};
const argv = process.argv.slice(2);
for (let i = 0; i + 1 < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];

function parseJson(file) {
  // The last line of the runner's stdout that parses as a JSON object.
  if (!file || !fs.existsSync(file)) return null;
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').reverse();
  for (const line of lines) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try { return JSON.parse(t); } catch (e) { /* keep looking */ }
  }
  return null;
}

function readFloats(file) {
  if (!file || !fs.existsSync(file)) return null;
  const buf = fs.readFileSync(file);
  if (buf.length === 0 || buf.length % 4) return null;
  const out = new Float32Array(buf.length / 4);
  for (let i = 0; i < out.length; ++i) out[i] = buf.readFloatLE(i * 4);
  return out;
}

// Max |a - b|, or a string saying why there is none. NaN anywhere is an error, not a number.
function maxAbsError(a, b, what) {
  if (!a || !b) return `${what}: no output to compare`;
  if (a.length !== b.length) return `${what}: output has ${b.length} values, ORT's ${a.length}`;
  let m = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = d;  // catches NaN
  }
  return Number.isNaN(m) ? `${what}: output holds NaN` : m;
}

const round = (x, digits = 3) => (x == null ? null : Number(x.toFixed(digits)));
const ratio = (base, t) => (base != null && t != null && t > 0 ? round(base / t, 3) : null);

// A runner's result: with several rounds (comma-separated files), the round with the lowest
// median; null when any round failed or gave no JSON.
const errors = [];
function result(name, msKey) {
  const files = (args[`${name}-json`] || '').split(',').filter((f) => f);
  const given = args[`${name}-error`];
  const runs = files.map(parseJson);
  const ms = runs.map((r) => (r && typeof r[msKey] === 'number' ? r[msKey] : null));
  if (given) {
    errors.push(`${name}: ${given}`);
  } else if (!files.length) {
    errors.push(`${name}: no result`);
  } else if (runs.some((r) => !r)) {
    errors.push(`${name}: printed no JSON line`);
  } else if (ms.some((x) => x == null)) {
    errors.push(`${name}: its JSON line has no ${msKey}`);
  } else {
    const best = runs[ms.indexOf(Math.min(...ms))];
    return { best, ms: best[msKey], rounds: ms };
  }
  return null;
}
const ortR = result('ort', 'ms');
const ltR = result('libtorch', 'ms');
const tsR = result('tessera', 'latency_ms');
const ort = ortR && ortR.best;
const lt = ltR && ltR.best;
const ts = tsR && tsR.best;

const ortOut = ort ? readFloats(args['ort-out']) : null;
const errOf = (json, file, what) => {
  if (!json || !ortOut) return null;
  const e = maxAbsError(ortOut, readFloats(file), what);
  if (typeof e === 'string') { errors.push(e); return null; }
  return e;
};
const tsErr = errOf(ts, args['tessera-out'], 'tessera');
const ltErr = errOf(lt, args['libtorch-out'], 'libtorch');
let scale = null;
if (ortOut) { scale = 0; for (const v of ortOut) scale = Math.max(scale, Math.abs(v)); }

const tsMs = tsR ? tsR.ms : null;
const line = {
  case: args.case,
  model: args.model,
  threads: Number(args.threads),
  cpu: args.cpu || null,
  openblas_core: process.env.TESSERA_OPENBLAS_CORE || null,  // LibTorch's BLAS kernels (bench/openblas_core.sh)
  tessera_ms: round(tsMs),
  ort_ms: ort ? round(ort.ms) : null,
  libtorch_ms: lt ? round(lt.ms) : null,
  ratio_vs_ort: ratio(ort && ort.ms, tsMs),
  ratio_vs_libtorch: ratio(lt && lt.ms, tsMs),
  max_abs_error_vs_ort: tsErr == null ? null : Number(tsErr.toPrecision(3)),
  libtorch_max_abs_error_vs_ort: ltErr == null ? null : Number(ltErr.toPrecision(3)),
  ort_output_max_abs: scale == null ? null : Number(scale.toPrecision(4)),
  tasks: ts && ts.tasks != null ? ts.tasks : null,
  schedules: ts && ts.schedules != null ? ts.schedules : null,
  ort_runs: ort ? ort.runs : null,
  libtorch_runs: lt ? lt.runs : null,
  tessera_runs: ts && ts.runs != null ? ts.runs : null,
  ort_version: ort ? ort.ort : null,
  torch_version: lt ? lt.torch : null,
  libtorch_omp_wait_policy: lt && lt.omp_wait_policy ? lt.omp_wait_policy : null,
};
// Every run's median: one per round for ORT and Tessera, two per round for LibTorch (OpenMP's
// default and passive wait policy, bench/e2e.sh).
line.rounds = Math.max(...[ortR, tsR].map((r) => (r ? r.rounds.length : 0)));
line.tessera_ms_rounds = tsR ? tsR.rounds.map((x) => round(x)) : null;
line.ort_ms_rounds = ortR ? ortR.rounds.map((x) => round(x)) : null;
line.libtorch_ms_rounds = ltR ? ltR.rounds.map((x) => round(x)) : null;
if (errors.length) line.error = errors.join('; ');
console.log(JSON.stringify(line));
