// The per-core L2 size (see host_cache.h).
#include "runtime/host_cache.h"

#include <unistd.h>

#include <cctype>
#include <fstream>

namespace tessera::runtime {
namespace {

constexpr int64_t kFallbackL2Bytes = int64_t{1} << 20;

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The first level-2 data or unified cache that sysfs lists for CPU 0, in bytes; 0 if none.
int64_t sysfs_l2_bytes() {
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    const std::string level = read_line(dir + "level");
    if (level.empty()) break;
    const std::string type = read_line(dir + "type");
    if (level == "2" && (type == "Unified" || type == "Data")) return parse_cache_size(read_line(dir + "size"));
  }
  return 0;
}

}  // namespace

int64_t parse_cache_size(const std::string& text) {
  size_t at = 0;
  int64_t value = 0;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) {
    value = value * 10 + (text[at] - '0');
    if (value > (int64_t{1} << 40)) return 0;
    ++at;
  }
  if (at == 0) return 0;
  const std::string unit = text.substr(at);
  if (unit.empty()) return value;
  if (unit == "K" || unit == "KB" || unit == "KiB") return value << 10;
  if (unit == "M" || unit == "MB" || unit == "MiB") return value << 20;
  return 0;
}

int64_t host_l2_bytes() {
  static const int64_t bytes = [] {
    if (int64_t b = sysfs_l2_bytes(); b > 0) return b;
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (long b = sysconf(_SC_LEVEL2_CACHE_SIZE); b > 0) return static_cast<int64_t>(b);
#endif
    return kFallbackL2Bytes;
  }();
  return bytes;
}

}  // namespace tessera::runtime
