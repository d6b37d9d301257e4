// GPU measurement through the driver API (see gpu_runner.h).
#include "runtime/cuda/gpu_runner.h"

#include <algorithm>
#include <vector>

#include "runtime/cuda/driver_api.h"

namespace tessera::runtime::cuda {
namespace {

// Device memory and module freed on every path out.
struct Session {
  const DriverApi& d;
  CUmodule module = nullptr;
  std::vector<CUdeviceptr> buffers{};
  CUdeviceptr flush = 0;
  CUevent start = nullptr, stop = nullptr;
  ~Session() {
    for (CUdeviceptr b : buffers) d.MemFree(b);
    if (flush) d.MemFree(flush);
    if (start) d.EventDestroy(start);
    if (stop) d.EventDestroy(stop);
    if (module) d.ModuleUnload(module);
  }
};

constexpr size_t kFlushBytes = size_t{256} << 20;  // past every L2 so far (H100: 50 MiB)

}  // namespace

MeasureResult measure_on_gpu(const CudaModule& module, const MeasureTask& task, const MeasureOptions& options) {
  MeasureResult result;
  auto fail = [&](MeasureError error, std::string message) {
    result.error = error;
    result.message = std::move(message);
    return result;
  };
  auto api = driver();
  if (!api) return fail(MeasureError::kRuntimeError, api.error().message);
  const DriverApi& d = **api;
  CUdevice device;
  CUcontext context;
  if (CUresult r = d.DeviceGet(&device, 0); r != CUDA_SUCCESS) return fail(MeasureError::kRuntimeError, d.error("cuDeviceGet", r));
  if (CUresult r = d.DevicePrimaryCtxRetain(&context, device); r != CUDA_SUCCESS) {
    return fail(MeasureError::kRuntimeError, d.error("cuDevicePrimaryCtxRetain", r));
  }
  d.CtxSetCurrent(context);
  Session s{d};
  std::string image = module.image.bytes;
  image.push_back('\0');  // PTX is loaded as text
  if (CUresult r = d.ModuleLoadData(&s.module, image.data()); r != CUDA_SUCCESS) {
    return fail(MeasureError::kCompileError, d.error("cuModuleLoadData", r));
  }
  std::vector<CUfunction> functions;
  for (const CudaLaunch& l : module.source.launches) {
    CUfunction f;
    if (CUresult r = d.ModuleGetFunction(&f, s.module, l.entry.c_str()); r != CUDA_SUCCESS) {
      return fail(MeasureError::kCompileError, d.error("cuModuleGetFunction", r));
    }
    functions.push_back(f);
  }
  // Buffers: inputs filled, outputs poisoned (all bits set: NaN), then temporaries.
  std::vector<schedule::KernelArgument> all = module.source.arguments;
  all.insert(all.end(), module.source.temporaries.begin(), module.source.temporaries.end());
  for (size_t i = 0; i < all.size(); ++i) {
    CUdeviceptr p = 0;
    const size_t bytes = static_cast<size_t>(std::max<int64_t>(all[i].size, 1)) * sizeof(float);
    if (CUresult r = d.MemAlloc(&p, bytes); r != CUDA_SUCCESS) return fail(MeasureError::kRuntimeError, d.error("cuMemAlloc", r));
    s.buffers.push_back(p);
    if (i < task.inputs.size()) d.MemcpyHtoD(p, task.inputs[i].data(), task.inputs[i].size() * sizeof(float));
    else d.MemsetD8(p, 0xff, bytes);
  }
  std::vector<void*> params;
  for (CUdeviceptr& p : s.buffers) params.push_back(&p);
  auto launch_all = [&]() -> CUresult {
    for (size_t k = 0; k < functions.size(); ++k) {
      const CudaLaunch& l = module.source.launches[k];
      CUresult r = d.LaunchKernel(functions[k], static_cast<unsigned>(l.grid[0]), static_cast<unsigned>(l.grid[1]),
                                  static_cast<unsigned>(l.grid[2]), static_cast<unsigned>(l.block[0]),
                                  static_cast<unsigned>(l.block[1]), static_cast<unsigned>(l.block[2]), 0, nullptr,
                                  params.data(), nullptr);
      if (r != CUDA_SUCCESS) return r;
    }
    return CUDA_SUCCESS;
  };
  if (CUresult r = launch_all(); r != CUDA_SUCCESS) return fail(MeasureError::kRuntimeError, d.error("cuLaunchKernel", r));
  if (CUresult r = d.CtxSynchronize(); r != CUDA_SUCCESS) return fail(MeasureError::kRuntimeError, d.error("the kernel", r));
  // Correctness, as on CPU.
  const size_t first_output = task.inputs.size();
  for (size_t o = 0; o < task.checks.size(); ++o) {
    std::vector<float> out(static_cast<size_t>(task.output_sizes[o]));
    d.MemcpyDtoH(out.data(), s.buffers[first_output + o], out.size() * sizeof(float));
    const OutputCheck& check = task.checks[o];
    std::vector<float> got;
    if (check.points.empty()) got = out;
    else for (int64_t p : check.points) got.push_back(out[static_cast<size_t>(p)]);
    schedule::Comparison c = schedule::compare(got, check.expected, task.tolerance);
    result.max_error = std::max(result.max_error, c.max_error);
    if (!c.ok) {
      return fail(MeasureError::kWrongAnswer, "output '" + all[first_output + o].name + "': " +
                                                  std::to_string(c.mismatches) + " elements differ from the reference (max error " +
                                                  std::to_string(c.max_error) + ")");
    }
  }
  // Timing with events.
  d.EventCreate(&s.start, CU_EVENT_DEFAULT);
  d.EventCreate(&s.stop, CU_EVENT_DEFAULT);
  if (options.flush_cache && d.MemAlloc(&s.flush, kFlushBytes) != CUDA_SUCCESS) s.flush = 0;
  auto timed = [&](int number, double* ms) -> CUresult {
    if (s.flush) d.MemsetD8(s.flush, 0, kFlushBytes);
    d.EventRecord(s.start, nullptr);
    for (int n = 0; n < number; ++n) {
      if (CUresult r = launch_all(); r != CUDA_SUCCESS) return r;
    }
    d.EventRecord(s.stop, nullptr);
    if (CUresult r = d.EventSynchronize(s.stop); r != CUDA_SUCCESS) return r;
    float elapsed = 0;
    d.EventElapsedTime(&elapsed, s.start, s.stop);
    *ms = elapsed;
    return CUDA_SUCCESS;
  };
  int number = std::max(1, options.number);
  double ms = 0;
  for (int w = 0; w < std::max(1, options.warmup); ++w) {
    if (CUresult r = timed(number, &ms); r != CUDA_SUCCESS) return fail(MeasureError::kRuntimeError, d.error("warm-up", r));
  }
  while (ms < options.min_repeat_ms && number < (1 << 20)) {
    number = ms <= 0 ? number * 10 : static_cast<int>(number * std::min(10.0, 1.2 * options.min_repeat_ms / ms)) + 1;
    if (CUresult r = timed(number, &ms); r != CUDA_SUCCESS) return fail(MeasureError::kRuntimeError, d.error("timing", r));
  }
  for (int rep = 0; rep < std::max(1, options.repeat); ++rep) {
    if (CUresult r = timed(number, &ms); r != CUDA_SUCCESS) return fail(MeasureError::kRuntimeError, d.error("timing", r));
    result.costs.push_back(ms * 1e-3 / number);
  }
  return result;
}

}  // namespace tessera::runtime::cuda
