// Loading and checking plug-in libraries (see plugin_loader.h).
#include "agents/plugin_loader.h"

#include <dlfcn.h>

#include <exception>
#include <filesystem>
#include <set>

#include "agents/plugin.h"

namespace tessera::agents {
namespace {

namespace fs = std::filesystem;

std::vector<LoadedPlugin>& loaded() {
  static std::vector<LoadedPlugin> list;
  return list;
}

// A model that scores everything alike: what agents needing one and models wrapping another
// get when their factories are tried at load time.
class FlatModel : public env::CostModel {
 public:
  std::string name() const override { return "flat"; }
  void add(const std::vector<env::ProxySample>&) override {}
  void train() override {}
  std::vector<float> predict(const std::vector<std::vector<float>>& f) override {
    return std::vector<float>(f.size(), 0.0f);
  }
};

// What running foreign code threw, as text.
template <typename F>
std::string failure_of(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  } catch (...) {
    return "threw a non-standard exception";
  }
}

// Builds each entry once with its defaults; the first failure, or empty when all build.
std::string try_factories(PluginRegistrar& r) {
  AgentContext agent_context{1, std::make_shared<FlatModel>(), ""};
  for (const AgentEntry& e : r.agents()) {
    std::string why = failure_of([&]() -> std::string {
      AgentParams defaults;
      for (const AgentParam& p : e.params) defaults[p.name] = p.fallback;
      if (!e.make) return "has no factory";
      return e.make(defaults, agent_context) ? "" : "returned nothing";
    });
    if (!why.empty()) return "agent '" + e.name + "': its factory " + why;
  }
  env::CostModelContext model_context;
  model_context.make_model = [](const std::string&) -> Result<std::shared_ptr<env::CostModel>> {
    return std::shared_ptr<env::CostModel>(std::make_shared<FlatModel>());
  };
  for (const env::CostModelEntry& e : r.cost_models()) {
    std::string why = failure_of([&]() -> std::string {
      env::ParamValues defaults;
      for (const env::Param& p : e.params) defaults[p.name] = p.fallback;
      if (!e.make) return "has no factory";
      return e.make(defaults, model_context) ? "" : "returned nothing";
    });
    if (!why.empty()) return "cost model '" + e.name + "': its factory " + why;
  }
  return "";
}

// The first name already registered or repeated within the plug-in; empty when none.
std::string first_clash(PluginRegistrar& r) {
  std::set<std::string> agents, models;
  for (const AgentEntry& e : r.agents()) {
    if (e.name.empty()) return "an agent without a name";
    if (find_agent(e.name)) return "agent '" + e.name + "' is already registered";
    if (!agents.insert(e.name).second) return "agent '" + e.name + "' is registered twice";
  }
  for (const env::CostModelEntry& e : r.cost_models()) {
    if (e.name.empty()) return "a cost model without a name";
    if (env::find_cost_model(e.name)) return "cost model '" + e.name + "' is already registered";
    if (!models.insert(e.name).second) return "cost model '" + e.name + "' is registered twice";
  }
  return "";
}

// The checks between dlopen and registration; an error message without the path prefix.
Result<LoadedPlugin> check_and_register(void* handle, const std::string& path) {
  void* symbol = dlsym(handle, TESSERA_PLUGIN_ENTRY_POINT);
  if (!symbol) {
    return make_error("no entry point '" TESSERA_PLUGIN_ENTRY_POINT "' (define one with TESSERA_PLUGIN, agents/plugin.h)");
  }
  using Entry = const PluginDescriptor* (*)();
  const PluginDescriptor* descriptor = reinterpret_cast<Entry>(symbol)();
  if (!descriptor) return make_error("its entry point returned no descriptor");
  if (descriptor->interface_version != kPluginInterfaceVersion) {
    return make_error("built for plug-in interface version " + std::to_string(descriptor->interface_version) +
                      ", this Tessera loads version " + std::to_string(kPluginInterfaceVersion) +
                      " (rebuild it against this Tessera)");
  }
  if (!descriptor->add_entries) return make_error("its descriptor has no registering function");
  PluginRegistrar registrar;
  std::string why = failure_of([&]() -> std::string {
    descriptor->add_entries(registrar);
    return "";
  });
  if (!why.empty()) return make_error("registering its entries " + why);
  if (registrar.agents().empty() && registrar.cost_models().empty()) {
    return make_error("it registers no agent and no cost model");
  }
  if (std::string clash = first_clash(registrar); !clash.empty()) return make_error(clash);
  if (std::string failed = try_factories(registrar); !failed.empty()) return make_error(failed);
  LoadedPlugin plugin;
  plugin.path = path;
  plugin.name = descriptor->name ? descriptor->name : "";
  for (AgentEntry& e : registrar.agents()) {
    plugin.agents.push_back(e.name);
    register_agent(std::move(e));
  }
  for (env::CostModelEntry& e : registrar.cost_models()) {
    plugin.cost_models.push_back(e.name);
    env::register_cost_model(std::move(e));
  }
  return plugin;
}

}  // namespace

Result<LoadedPlugin> load_plugin(const std::string& given) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(given, ec);
  const std::string path = ec ? given : absolute.lexically_normal().string();
  auto refuse = [&](const std::string& why) { return make_error("plugin " + path + ": " + why); };
  if (!fs::is_regular_file(path, ec)) return refuse("no such file");
  const std::string canonical = fs::canonical(path, ec).string();
  for (const LoadedPlugin& p : loaded()) {
    if (fs::canonical(p.path, ec).string() == canonical) {
      LoadedPlugin again = p;
      again.already_loaded = true;
      return again;
    }
  }
  // RTLD_NOW: a missing symbol refuses the library here, not in the middle of a run.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return refuse(std::string("cannot load: ") + (why ? why : "unknown error"));
  }
  auto plugin = check_and_register(handle, path);
  if (!plugin) {
    dlclose(handle);
    return refuse(plugin.error().message);
  }
  loaded().push_back(*plugin);
  return plugin;
}

const std::vector<LoadedPlugin>& loaded_plugins() { return loaded(); }

}  // namespace tessera::agents
