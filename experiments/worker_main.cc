// tessera-worker: the measurement worker process. A Runner starts it with a socket on
// standard input and talks to it there (runtime/worker.h); it is not meant to be run by hand.
#include "runtime/worker.h"

int main() { return tessera::runtime::serve_worker(0); }
