// The measurement worker's loop: runs in its own process (tessera-worker, started by a
// Runner), reads "task" and "run" messages from `fd`, links each candidate's object code,
// checks and times it (measure_loaded_kernel) and answers with a "result". A crash or hang of
// a kernel kills only this process; the Runner notices and starts another.
#pragma once

namespace tessera::runtime {

// Serves until the stream ends; returns the process exit code.
int serve_worker(int fd);

}  // namespace tessera::runtime
