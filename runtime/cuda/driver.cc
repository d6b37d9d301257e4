// Loading the CUDA driver at run time and describing the GPU (see driver.h, driver_api.h).
#include <dlfcn.h>

#include <mutex>

#include "runtime/cuda/driver.h"
#include "runtime/cuda/driver_api.h"

namespace tessera::runtime::cuda {
namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

Result<DriverApi> load_driver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    return make_error(std::string("no GPU driver: cannot load libcuda.so.1") + (why ? std::string(" (") + why + ")" : ""));
  }
  auto get = reinterpret_cast<GetProcAddress>(dlsym(lib, "cuGetProcAddress_v2"));
  if (!get) return make_error("the GPU driver is too old: libcuda.so.1 has no cuGetProcAddress_v2 (CUDA 12+ needed)");
  DriverApi api;
  std::string missing;
  auto resolve = [&](auto& fn, const char* name) {
    void* p = nullptr;
    CUdriverProcAddressQueryResult status;
    if (get(name, &p, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || !p) {
      missing += std::string(missing.empty() ? "" : ", ") + name;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
  resolve(api.Init, "cuInit");
  resolve(api.DriverGetVersion, "cuDriverGetVersion");
  resolve(api.GetErrorString, "cuGetErrorString");
  resolve(api.DeviceGetCount, "cuDeviceGetCount");
  resolve(api.DeviceGet, "cuDeviceGet");
  resolve(api.DeviceGetName, "cuDeviceGetName");
  resolve(api.DeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(api.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(api.CtxSetCurrent, "cuCtxSetCurrent");
  resolve(api.CtxSynchronize, "cuCtxSynchronize");
  resolve(api.ModuleLoadData, "cuModuleLoadData");
  resolve(api.ModuleUnload, "cuModuleUnload");
  resolve(api.ModuleGetFunction, "cuModuleGetFunction");
  resolve(api.MemAlloc, "cuMemAlloc");
  resolve(api.MemFree, "cuMemFree");
  resolve(api.MemcpyHtoD, "cuMemcpyHtoD");
  resolve(api.MemcpyDtoH, "cuMemcpyDtoH");
  resolve(api.MemsetD8, "cuMemsetD8");
  resolve(api.LaunchKernel, "cuLaunchKernel");
  resolve(api.EventCreate, "cuEventCreate");
  resolve(api.EventRecord, "cuEventRecord");
  resolve(api.EventSynchronize, "cuEventSynchronize");
  resolve(api.EventElapsedTime, "cuEventElapsedTime");
  resolve(api.EventDestroy, "cuEventDestroy");
  if (!missing.empty()) return make_error("the GPU driver lacks entry points: " + missing);
  if (CUresult r = api.Init(0); r != CUDA_SUCCESS) return make_error("no usable GPU: " + api.error("cuInit", r));
  int count = 0;
  if (CUresult r = api.DeviceGetCount(&count); r != CUDA_SUCCESS) return make_error(api.error("cuDeviceGetCount", r));
  if (count == 0) return make_error("no GPU: the driver sees no device");
  return api;
}

}  // namespace

std::string DriverApi::error(const char* call, CUresult r) const {
  const char* text = nullptr;
  if (GetErrorString) GetErrorString(r, &text);
  return std::string(call) + " failed: " + (text ? text : "error " + std::to_string(static_cast<int>(r)));
}

Result<const DriverApi*> driver() {
  static std::once_flag once;
  static Result<DriverApi> loaded = make_error("not loaded");
  std::call_once(once, [] { loaded = load_driver(); });
  if (!loaded) return loaded.error();
  return &*loaded;
}

Result<GpuInfo> probe_gpu() {
  auto api = driver();
  if (!api) return api.error();
  const DriverApi& d = **api;
  CUdevice device;
  if (CUresult r = d.DeviceGet(&device, 0); r != CUDA_SUCCESS) return make_error(d.error("cuDeviceGet", r));
  GpuInfo info;
  char name[256] = {};
  d.DeviceGetName(name, sizeof name, device);
  info.name = name;
  d.DeviceGetAttribute(&info.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
  d.DeviceGetAttribute(&info.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  d.DeviceGetAttribute(&info.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  d.DriverGetVersion(&info.driver_version);
  return info;
}

}  // namespace tessera::runtime::cuda
