// LibTorch baseline for bench/run.sh e2e: runs one TorchScript model (scripts/export_models.py
// writes them) the way a LibTorch user does: torch::jit::load, eval(), inference mode,
// torch::set_num_threads(N); OpenBLAS's own pool is capped at N too (cap_openblas_threads).
//
//   tessera_libtorch_baseline --model M.pt --shape 1,3,224,224 --threads N
//       [--input IN.bin] [--output OUT.bin] [--runs 20] [--warmup 5] [--min-seconds 1]
//       [--blas-threads K] [--optimize]
//
// --input is the model's one input as raw little-endian float32 (the file bench/baselines/
// ort_run.js writes); without it the input is torch::randn from seed 0. After the warm-up runs
// (the JIT's profiling executor specializes the graph during the first ones) it times at least
// --runs runs, continuing up to 500 until --min-seconds have passed, and prints one JSON line
//   {"ms": median, "runs": n, "threads": N, "min_ms", "max_ms", "torch": "1.13.x", "optimized": bool,
//    "openblas_threads_capped": bool, "omp_wait_policy": OMP_WAIT_POLICY or "default"}
// --output writes the first output as raw little-endian float32. --optimize freezes the module
// and applies torch::jit::optimize_for_inference (conv-BN folding, oneDNN layouts) first.
// --blas-threads caps OpenBLAS's pool at K instead of N.
// The only translation unit of the project that includes torch outside env/ and agents/.
#include <torch/script.h>
#include <torch/version.h>
#include <ATen/Parallel.h>

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Args {
  std::string model, input, output;
  std::vector<int64_t> shape;
  int threads = 1, runs = 20, warmup = 5, blas_threads = 0;  // 0: as many as threads
  double min_seconds = 1.0;
  bool optimize = false;
};

[[noreturn]] void usage(const std::string& msg) {
  std::cerr << "libtorch_run: " << msg << "\n"
            << "usage: tessera_libtorch_baseline --model M.pt --shape 1,3,224,224 --threads N "
               "[--input IN.bin] [--output OUT.bin] [--runs R] [--warmup W] "
               "[--min-seconds S] [--blas-threads K] [--optimize]\n";
  std::exit(2);
}

int to_int(const std::string& flag, const std::string& v, int lo) {
  char* end = nullptr;
  long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || x < lo || x > 1000000) usage(flag + " wants an integer >= " + std::to_string(lo));
  return static_cast<int>(x);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--optimize") {
      a.optimize = true;
      continue;
    }
    if (i + 1 >= argc) usage("missing value for " + flag);
    std::string v = argv[++i];
    if (flag == "--model") a.model = v;
    else if (flag == "--input") a.input = v;
    else if (flag == "--output") a.output = v;
    else if (flag == "--threads") a.threads = to_int(flag, v, 1);
    else if (flag == "--blas-threads") a.blas_threads = to_int(flag, v, 1);
    else if (flag == "--runs") a.runs = to_int(flag, v, 20);
    else if (flag == "--warmup") a.warmup = to_int(flag, v, 0);
    else if (flag == "--min-seconds") a.min_seconds = std::atof(v.c_str());
    else if (flag == "--shape") {
      std::stringstream ss(v);
      std::string d;
      while (std::getline(ss, d, ',')) a.shape.push_back(to_int("--shape", d, 1));
    } else usage("unknown argument " + flag);
  }
  if (a.model.empty()) usage("--model is required");
  if (a.shape.empty()) usage("--shape is required");
  return a;
}

torch::Tensor read_input(const Args& a) {
  int64_t count = 1;
  for (int64_t d : a.shape) count *= d;
  if (a.input.empty()) {
    torch::manual_seed(0);
    return torch::randn(a.shape);
  }
  std::ifstream f(a.input, std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("cannot read " + a.input);
  const auto bytes = static_cast<int64_t>(f.tellg());
  if (bytes != count * 4) {
    throw std::runtime_error(a.input + " holds " + std::to_string(bytes) + " bytes; the shape needs " +
                             std::to_string(count * 4));
  }
  f.seekg(0);
  torch::Tensor t = torch::empty(a.shape, torch::kFloat32);
  f.read(reinterpret_cast<char*>(t.data_ptr<float>()), count * 4);  // x86-64: little-endian
  return t;
}

torch::Tensor first_output(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor();
  if (v.isTuple()) return first_output(v.toTupleRef().elements().at(0));
  if (v.isList()) return first_output(v.toListRef().at(0));
  throw std::runtime_error("the model's output is not a tensor, tuple or list");
}

double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const size_t m = xs.size() / 2;
  return xs.size() % 2 ? xs[m] : (xs[m - 1] + xs[m]) / 2;
}

// Debian's LibTorch does its matrix products in OpenBLAS (libblas.so.3), whose own thread pool
// ignores torch::set_num_threads: with "one thread" a BERT-base encoder ran on both cores of a
// two-core machine (4.0 s user time in 2.8 s), and with two threads OpenMP's and OpenBLAS's
// threads fought over the cores (3-4x slower than one). Cap OpenBLAS at the same count;
// returns whether it was found. (OpenMP's wait policy is read from OMP_WAIT_POLICY before main:
// bench/e2e.sh runs this program with the default and with PASSIVE and keeps the faster.)
bool cap_openblas_threads(int n) {
  using SetThreads = void (*)(int);
  auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (set) set(n);
  return set != nullptr;
}

int run(const Args& a) {
  at::set_num_interop_threads(1);
  torch::set_num_threads(a.threads);
  const bool openblas_capped = cap_openblas_threads(a.blas_threads ? a.blas_threads : a.threads);
  torch::jit::Module module = torch::jit::load(a.model);
  module.eval();
  if (a.optimize) module = torch::jit::optimize_for_inference(module);
  const torch::Tensor input = read_input(a);
  c10::InferenceMode guard;
  std::vector<c10::IValue> inputs{input};

  torch::Tensor out;
  for (int i = 0; i < a.warmup; ++i) out = first_output(module.forward(inputs));
  using clock = std::chrono::steady_clock;
  std::vector<double> ms;
  const auto start = clock::now();
  while (static_cast<int>(ms.size()) < a.runs ||
         (ms.size() < 500 && std::chrono::duration<double>(clock::now() - start).count() < a.min_seconds)) {
    const auto t0 = clock::now();
    out = first_output(module.forward(inputs));
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
  }

  if (!a.output.empty()) {
    torch::Tensor o = out.to(torch::kFloat32).contiguous();
    if (o.is_mkldnn()) o = o.to_dense();
    std::ofstream f(a.output, std::ios::binary);
    f.write(reinterpret_cast<const char*>(o.data_ptr<float>()), o.numel() * 4);
    if (!f) throw std::runtime_error("cannot write " + a.output);
  }
  const auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  std::string wait_policy = std::getenv("OMP_WAIT_POLICY") ? std::getenv("OMP_WAIT_POLICY") : "default";
  for (char& c : wait_policy) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (wait_policy.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string::npos) wait_policy = "other";
  std::printf("{\"ms\": %.3f, \"runs\": %zu, \"threads\": %d, \"min_ms\": %.3f, \"max_ms\": %.3f, "
              "\"torch\": \"%d.%d.%d\", \"optimized\": %s, \"openblas_threads_capped\": %s, "
              "\"omp_wait_policy\": \"%s\"}\n",
              median(ms), ms.size(), a.threads, *lo, *hi, TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
              TORCH_VERSION_PATCH, a.optimize ? "true" : "false", openblas_capped ? "true" : "false", wait_policy.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  try {
    return run(a);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    if (auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);  // torch appends traces
    std::cerr << "libtorch_run: " << msg << "\n";
    return 1;
  }
}
