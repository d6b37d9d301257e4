// The size of this machine's per-core L2 cache, as the default schedule rule needs it to decide
// which operand a tiled loop nest should keep cached (runtime/default_schedule.cc).
//
// Read from Linux's sysfs cache description of CPU 0 (the unified level-2 cache), else from
// sysconf, else 1 MiB. It is not part of the hardware fingerprint: the CPU model already is.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::runtime {

// This machine's L2 bytes per core (computed once).
int64_t host_l2_bytes();

// A sysfs cache size ("2048K", "1M", "524288") in bytes; 0 when it does not parse.
int64_t parse_cache_size(const std::string& text);

}  // namespace tessera::runtime
