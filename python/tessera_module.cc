// The `tessera` Python module (pybind11): a tuning task, its RL environment with Gymnasium
// semantics, and tuning or conformance-checking an agent written in Python.
//
//   task = tessera.Task("matmul", {"m": 64, "n": 64, "k": 64}, run_dir="runs/py")  # real measurer
//   task = tessera.Task("matmul", {...}, simulate=True)                            # replay simulator
//   env = tessera.TaskEnv(task, score=None, max_steps=32)
//   obs, info = env.reset(seed=0)                 # info["action_mask"]: numpy bool array
//   obs, reward, terminated, truncated, info = env.step(action)
//   tessera.tune(task, agent, trials=64, batch_size=8)  # agent.propose(task, n) / agent.observe(task, ms)
//   ok, failures = tessera.check_agent(agent)           # agents/conformance.h, as plug-ins pass it
//
// A candidate is a tuple (sketch index, [knob value indices]). With a run_dir the task writes
// records.jsonl (one line per measurement, as `tessera tune` does) and a config.yaml naming
// the task, so `tessera best RUN_DIR` reads the run; a task made again on the same run_dir
// resumes from its records. pybind11 and Python headers stay in this
// file; the module links the torch-free libraries only (agents, env, runtime, graph, schedule).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "agents/conformance.h"
#include "agents/search_agent.h"
#include "agents/search_loop.h"
#include "env/task_env.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace py = pybind11;
using namespace tessera;

namespace {

using PyCandidate = std::pair<int, std::vector<int>>;

PyCandidate to_py(const env::Candidate& c) { return {c.sketch, c.knobs}; }
env::Candidate from_py(const PyCandidate& c) { return {c.first, c.second, ""}; }

// A candidate from Python, checked against the task (an index out of a knob's domain would
// read past it): a ValueError instead.
env::Candidate checked(const env::TuningTask& task, const PyCandidate& c) {
  const int sketches = static_cast<int>(task.sketches().size());
  if (c.first < 0 || c.first >= sketches) {
    throw std::invalid_argument("candidate: sketch " + std::to_string(c.first) + " out of range (the task has " +
                                std::to_string(sketches) + ")");
  }
  const auto& knobs = task.sketches()[static_cast<size_t>(c.first)].knobs.knobs();
  if (c.second.size() != knobs.size()) {
    throw std::invalid_argument("candidate: " + std::to_string(c.second.size()) + " knob values for sketch " +
                                std::to_string(c.first) + ", which has " + std::to_string(knobs.size()) + " knobs");
  }
  for (size_t k = 0; k < knobs.size(); ++k) {
    if (c.second[k] < 0 || c.second[k] >= static_cast<int>(knobs[k].domain.size())) {
      throw std::invalid_argument("candidate: value " + std::to_string(c.second[k]) + " of knob " + knobs[k].name +
                                  " out of range (its domain has " + std::to_string(knobs[k].domain.size()) + ")");
    }
  }
  return from_py(c);
}

// A task owned by Python, or a view of one the C++ side owns (what a Python agent is shown).
struct Task {
  std::shared_ptr<env::TuningTask> owned;
  env::TuningTask* task = nullptr;

  env::TuningTask& get() const {
    if (!task) throw std::runtime_error("this task view is no longer valid");
    return *task;
  }
};

template <typename T>
T unwrap(Result<T> r) {
  if (!r) throw std::invalid_argument(r.error().message);
  return std::move(*r);
}

Task make_task(const std::string& op, const std::map<std::string, int64_t>& params, const std::string& name,
               const std::string& run_dir, bool simulate, uint64_t seed, int threads, int repeat,
               double min_repeat_ms) {
  auto dag = unwrap(schedule::make_op(op, params));
  env::TaskOptions options;
  options.seed = seed;
  options.measure.threads = threads;
  options.measure.repeat = repeat;
  options.measure.min_repeat_ms = min_repeat_ms;
  if (simulate) options.measurer = std::make_shared<runtime::ReplaySimulator>();
  if (!run_dir.empty()) {
    namespace fs = std::filesystem;
    fs::create_directories(run_dir);
    options.records_path = (fs::path(run_dir) / "records.jsonl").string();
    // What `tessera best` reads to know the run's task (a config it can load).
    nlohmann::json config = {{"run_dir", run_dir},
                             {"seed", seed},
                             {"target", {{"kind", "cpu"}, {"threads", threads}}},
                             {"tasks", {{{"name", name.empty() ? dag.summary() : name}, {"op", op}, {"params", params}}}}};
    std::ofstream(fs::path(run_dir) / "config.yaml") << "# written by the tessera Python module\n"
                                                      << config.dump(2) << "\n";
  }
  // Earlier records of the run directory (this machine's only) are restored, not re-measured.
  std::vector<runtime::MeasureRecord> earlier;
  if (!options.records_path.empty() && std::filesystem::exists(options.records_path)) {
    auto file = unwrap(runtime::read_records(options.records_path));
    if (auto here = runtime::check_measured_here(file.records, options.records_path); !here) {
      throw std::invalid_argument(here.error().message);
    }
    earlier = std::move(file.records);
  }
  auto task = unwrap(env::TuningTask::create(std::move(dag), options));
  task->restore(earlier);
  Task t;
  t.owned = std::shared_ptr<env::TuningTask>(std::move(task));
  t.task = t.owned.get();
  return t;
}

py::dict measurement_dict(const env::TuningTask& task, const env::Measurement& m) {
  py::dict d;
  d["candidate"] = to_py(m.candidate);
  d["ok"] = m.ok();
  d["seconds"] = m.seconds();
  d["gflops"] = m.ok() && m.seconds() > 0 ? task.dag().flop_count() / m.seconds() * 1e-9 : 0.0;
  d["error"] = std::string(runtime::to_string(m.result.error));
  d["message"] = m.result.message;
  return d;
}

py::list sketch_list(const env::TuningTask& task) {
  py::list out;
  for (const schedule::Sketch& s : task.sketches()) {
    py::dict d;
    d["id"] = s.id;
    d["description"] = s.description;
    std::vector<int> sizes;
    std::vector<std::string> names;
    for (const schedule::Knob& k : s.knobs.knobs()) {
      sizes.push_back(static_cast<int>(k.domain.size()));
      names.push_back(k.name);
    }
    d["knob_sizes"] = sizes;
    d["knob_names"] = names;
    out.append(d);
  }
  return out;
}

// A cost model calling a Python function on a (rows, features) float32 array; without one,
// every candidate scores 0.
class PyScoreModel : public env::CostModel {
 public:
  explicit PyScoreModel(py::object fn) : fn_(std::move(fn)) {}
  std::string name() const override { return "python"; }
  void add(const std::vector<env::ProxySample>&) override {}
  void train() override {}
  std::vector<float> predict(const std::vector<std::vector<float>>& rows) override {
    if (fn_.is_none() || rows.empty()) return std::vector<float>(rows.size(), 0.0f);
    const size_t width = rows[0].size();
    py::array_t<float> array({rows.size(), width});
    auto view = array.mutable_unchecked<2>();
    for (size_t r = 0; r < rows.size(); ++r) {
      for (size_t c = 0; c < width; ++c) view(r, c) = rows[r][c];
    }
    auto scores = fn_(array).cast<std::vector<float>>();
    if (scores.size() != rows.size()) throw std::runtime_error("score(features) must return one score per row");
    return scores;
  }

 private:
  py::object fn_;
};

py::array_t<float> to_numpy(const std::vector<float>& v) { return py::array_t<float>(v.size(), v.data()); }

py::dict info_dict(const env::EnvInfo& info) {
  py::dict d;
  d["valid"] = info.valid;
  d["reason"] = info.reason;
  d["score"] = info.score;
  d["candidate"] = to_py(info.candidate);
  d["steps"] = info.steps;
  py::array_t<bool> mask(info.action_mask.size());
  auto m = mask.mutable_unchecked<1>();
  for (size_t i = 0; i < info.action_mask.size(); ++i) m(i) = info.action_mask[i];
  d["action_mask"] = mask;
  return d;
}

struct Env {
  Task task;  // keeps the task alive as long as the environment
  std::shared_ptr<env::TaskEnv> env;
};

// A SearchAgent whose propose/observe are a Python object's methods.
class PyAgent : public agents::SearchAgent {
 public:
  explicit PyAgent(py::object agent) : agent_(std::move(agent)) {}
  std::string name() const override {
    return py::hasattr(agent_, "name") ? py::str(agent_.attr("name")).cast<std::string>() : "python";
  }
  std::vector<env::Candidate> propose(const env::TuningTask& task, int count) override {
    auto proposed = agent_.attr("propose")(view(task), count).cast<std::vector<PyCandidate>>();
    std::vector<env::Candidate> out;
    for (const PyCandidate& c : proposed) out.push_back(checked(task, c));
    return out;
  }
  void observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured) override {
    py::list ms;
    for (const env::Measurement& m : measured) ms.append(measurement_dict(task, m));
    agent_.attr("observe")(view(task), ms);
  }
  bool done() const override {
    return py::hasattr(agent_, "done") && agent_.attr("done")().cast<bool>();
  }

 private:
  static Task view(const env::TuningTask& task) {
    Task t;
    t.task = const_cast<env::TuningTask*>(&task);  // Python sees methods that only read, plus sample
    return t;
  }
  py::object agent_;
};

}  // namespace

PYBIND11_MODULE(tessera, m) {
  m.doc() = "Tessera: tuning tasks, their Gymnasium-style environment, and Python agents";

  py::class_<Task>(m, "Task")
      .def(py::init(&make_task), py::arg("op"), py::arg("params"), py::arg("name") = "", py::arg("run_dir") = "",
           py::arg("simulate") = false, py::arg("seed") = 1, py::arg("threads") = 1, py::arg("repeat") = 3,
           py::arg("min_repeat_ms") = 20.0,
           "A tuning task: op name and integer params (tessera validate's ops). simulate=True measures on the "
           "replay simulator; otherwise the real builder and runner. run_dir keeps records.jsonl and config.yaml.")
      .def_property_readonly("workload_key", [](const Task& t) { return t.get().dag().workload_key(); })
      .def_property_readonly("summary", [](const Task& t) { return t.get().dag().summary(); })
      .def_property_readonly("flops", [](const Task& t) { return t.get().dag().flop_count(); })
      .def_property_readonly("sketches", [](const Task& t) { return sketch_list(t.get()); })
      .def_property_readonly("trials", [](const Task& t) { return t.get().trials(); })
      .def_property_readonly("best_gflops", [](const Task& t) { return t.get().best_gflops(); })
      .def_property_readonly("best", [](const Task& t) -> py::object {
        const auto& best = t.get().best();
        if (!best) return py::none();
        return measurement_dict(t.get(), *best);
      })
      .def("sample", [](const Task& t, uint64_t seed, int sketch) {
             std::mt19937_64 rng(seed);
             return to_py(t.get().sample(rng, sketch));
           }, py::arg("seed"), py::arg("sketch") = -1, "a uniformly sampled candidate, drawn from seed")
      .def("measured", [](const Task& t, const PyCandidate& c) { return t.get().measured(checked(t.get(), c)); })
      .def("measure", [](Task& t, const std::vector<PyCandidate>& cs) {
             std::vector<env::Candidate> candidates;
             for (const auto& c : cs) candidates.push_back(checked(t.get(), c));
             std::vector<env::Measurement> measured;
             {
               py::gil_scoped_release release;  // compiling and timing take a while
               measured = t.get().measure(candidates);
             }
             py::list out;
             for (const auto& me : measured) out.append(measurement_dict(t.get(), me));
             return out;
           }, "build, run, check and record the candidates; one dict per candidate");

  py::class_<Env>(m, "TaskEnv")
      .def(py::init([](Task task, py::object score, int max_steps, double invalid_penalty) {
             env::EnvOptions options;
             options.max_steps = max_steps;
             options.invalid_penalty = invalid_penalty;
             Env e{task, nullptr};
             e.env = std::make_shared<env::TaskEnv>(task.get(), std::make_shared<PyScoreModel>(score), options);
             return e;
           }), py::arg("task"), py::arg("score") = py::none(), py::arg("max_steps") = 32, py::arg("invalid_penalty") = 1.0,
           "Gymnasium semantics over one task: a state is a candidate, an action one knob move; the reward is the "
           "change of score(features) (a function of a (rows, features) array; None: 0)")
      .def("reset", [](Env& e, py::object seed, py::object options) {
             const uint64_t s = seed.is_none() ? 0 : seed.cast<uint64_t>();
             std::pair<env::Observation, env::EnvInfo> r;
             if (!options.is_none() && options.contains("start")) {
               r = e.env->reset(s, checked(e.task.get(), options["start"].cast<PyCandidate>()));
             } else {
               const int sketch = !options.is_none() && options.contains("sketch") ? options["sketch"].cast<int>() : -1;
               r = e.env->reset(s, sketch);
             }
             return py::make_tuple(to_numpy(r.first.flat()), info_dict(r.second));
           }, py::arg("seed") = py::none(), py::arg("options") = py::none())
      .def("step", [](Env& e, int action) {
             env::StepResult r = e.env->step(action);
             return py::make_tuple(to_numpy(r.observation.flat()), r.reward, r.terminated, r.truncated, info_dict(r.info));
           })
      .def_property_readonly("action_count", [](const Env& e) { return e.env->action_count(); })
      .def("observation_size", [](const Env& e, int sketch) { return e.env->observation_size(sketch); })
      .def_property_readonly("candidate", [](const Env& e) { return to_py(e.env->candidate()); });

  m.def("tune", [](Task& task, py::object agent, int trials, int batch_size) {
          PyAgent a(agent);
          agents::run_search(a, task.get(), trials, batch_size);
          return task.get().trials();
        }, py::arg("task"), py::arg("agent"), py::arg("trials"), py::arg("batch_size") = 8,
        "ask/tell: agent.propose(task, count) -> candidates, the task measures them, agent.observe(task, "
        "measurements); until `trials` are measured or agent.done()");

  m.def("check_agent", [](py::object agent) {
          PyAgent a(agent);
          agents::ConformanceReport report = agents::check_agent_conformance(a);
          return py::make_tuple(report.ok(), report.failures);
        }, py::arg("agent"),
        "the conformance checks built-in agents and plug-ins pass (agents/conformance.h): (ok, failures)");
}
