// Internal to runtime/cuda/: the CUDA driver API entry points Tessera uses, resolved at run time.
//
// libcuda.so.1 is opened with dlopen and every entry point is looked up through
// cuGetProcAddress (cuda.h renames many functions, e.g. cuMemAlloc -> cuMemAlloc_v2, so plain
// dlsym names are a trap; TOOLCHAIN.md). Nothing links libcuda: binaries start on machines
// without a driver. Only driver.cc and gpu_runner.cc include this (and so cuda.h).
#pragma once

#include <cuda.h>

#include <string>

#include "schedule/result.h"

namespace tessera::runtime::cuda {

struct DriverApi {
  decltype(&::cuInit) Init = nullptr;
  decltype(&::cuDriverGetVersion) DriverGetVersion = nullptr;
  decltype(&::cuGetErrorString) GetErrorString = nullptr;
  decltype(&::cuDeviceGetCount) DeviceGetCount = nullptr;
  decltype(&::cuDeviceGet) DeviceGet = nullptr;
  decltype(&::cuDeviceGetName) DeviceGetName = nullptr;
  decltype(&::cuDeviceGetAttribute) DeviceGetAttribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) DevicePrimaryCtxRetain = nullptr;
  decltype(&::cuCtxSetCurrent) CtxSetCurrent = nullptr;
  decltype(&::cuCtxSynchronize) CtxSynchronize = nullptr;
  decltype(&::cuModuleLoadData) ModuleLoadData = nullptr;
  decltype(&::cuModuleUnload) ModuleUnload = nullptr;
  decltype(&::cuModuleGetFunction) ModuleGetFunction = nullptr;
  decltype(&::cuMemAlloc) MemAlloc = nullptr;
  decltype(&::cuMemFree) MemFree = nullptr;
  decltype(&::cuMemcpyHtoD) MemcpyHtoD = nullptr;
  decltype(&::cuMemcpyDtoH) MemcpyDtoH = nullptr;
  decltype(&::cuMemsetD8) MemsetD8 = nullptr;
  decltype(&::cuLaunchKernel) LaunchKernel = nullptr;
  decltype(&::cuEventCreate) EventCreate = nullptr;
  decltype(&::cuEventRecord) EventRecord = nullptr;
  decltype(&::cuEventSynchronize) EventSynchronize = nullptr;
  decltype(&::cuEventElapsedTime) EventElapsedTime = nullptr;
  decltype(&::cuEventDestroy) EventDestroy = nullptr;

  // "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"-style text of a failed call.
  std::string error(const char* call, CUresult r) const;
};

// The driver, loaded and initialized once per process; an Error says why there is none
// (no libcuda.so.1, no device, an entry point missing).
Result<const DriverApi*> driver();

}  // namespace tessera::runtime::cuda
