// GPU runs over the worker protocol (see gpu_worker.h).
#include "runtime/cuda/gpu_worker.h"

#include "runtime/cuda/gpu_runner.h"

namespace tessera::runtime::cuda {
namespace {

nlohmann::json arguments_to_json(const std::vector<schedule::KernelArgument>& arguments) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : arguments) {
    out.push_back({{"name", a.name}, {"size", a.size}, {"dtype", static_cast<int>(a.dtype)}, {"is_output", a.is_output}});
  }
  return out;
}

std::vector<schedule::KernelArgument> arguments_from_json(const nlohmann::json& j) {
  std::vector<schedule::KernelArgument> out;
  for (const auto& a : j) {
    out.push_back({a.at("name").get<std::string>(), a.at("size").get<int64_t>(),
                   static_cast<schedule::DType>(a.at("dtype").get<int>()), a.at("is_output").get<bool>()});
  }
  return out;
}

}  // namespace

Message gpu_run_message(const CudaModule& module, const MeasureOptions& options) {
  nlohmann::json launches = nlohmann::json::array();
  for (const CudaLaunch& l : module.source.launches) {
    launches.push_back({{"entry", l.entry}, {"grid", l.grid}, {"block", l.block}, {"shared_bytes", l.shared_bytes}});
  }
  Message m;
  m.header = {{"type", kGpuRunMessage},
              {"ptx", module.image.ptx},
              {"launches", launches},
              {"arguments", arguments_to_json(module.source.arguments)},
              {"temporaries", arguments_to_json(module.source.temporaries)},
              {"options", options_to_json(options)}};
  m.blobs.push_back(module.image.bytes);
  return m;
}

Result<std::pair<CudaModule, MeasureOptions>> gpu_run_from_message(const Message& m) {
  CudaModule module;
  MeasureOptions options;
  try {
    if (m.header.at("type").get<std::string>() != kGpuRunMessage || m.blobs.size() != 1) {
      return make_error("malformed gpu_run message");
    }
    module.image.ptx = m.header.at("ptx").get<bool>();
    module.image.bytes = m.blobs[0];
    for (const auto& l : m.header.at("launches")) {
      module.source.launches.push_back({l.at("entry").get<std::string>(), l.at("grid").get<std::array<int64_t, 3>>(),
                                        l.at("block").get<std::array<int64_t, 3>>(), l.at("shared_bytes").get<int64_t>()});
    }
    module.source.arguments = arguments_from_json(m.header.at("arguments"));
    module.source.temporaries = arguments_from_json(m.header.at("temporaries"));
    auto parsed = options_from_json(m.header.at("options"));
    if (!parsed) return parsed.error();
    options = *parsed;
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("malformed gpu_run message: ") + e.what());
  }
  return std::make_pair(std::move(module), options);
}

RunOutcome serve_gpu_run(const Message& run, const MeasureTask& task) {
  RunOutcome outcome;
  auto parsed = gpu_run_from_message(run);
  if (!parsed) {
    outcome.result.error = MeasureError::kRuntimeError;
    outcome.result.message = parsed.error().message;
    return outcome;
  }
  outcome.result = measure_on_gpu(parsed->first, task, parsed->second);
  // A fault (an illegal address, a trap) leaves the context unusable for every later call, and
  // a failed module load or launch may too: this worker ends and the next candidate gets a
  // fresh one. Wrong answers and slow kernels leave the context sound.
  outcome.retire = outcome.result.error == MeasureError::kRuntimeError || outcome.result.error == MeasureError::kCompileError;
  return outcome;
}

}  // namespace tessera::runtime::cuda
