# The tuner's heap: gperftools' tcmalloc (libgoogle-perftools-dev) in place of glibc's malloc.
#
# Proposing a round is mostly building and freeing small expression trees (schedule lowering for
# the cost model's features) on every core, and measuring it is mostly LLVM, which allocates as
# much. glibc's malloc spends a quarter of the tuner's CPU there (perf, ResNet-50 network tune);
# with tcmalloc a 360 s ResNet-50 tune ran 1.5x the trials (bench/NOTES.md, "The tuner's heap").
# Only the programs that tune link it: the kernels are timed in tessera-worker, whose heap is
# not in the measured loop, and libraries (the Python module, plug-ins) keep their host's heap.
#
#   tessera_link_fast_malloc(TARGET)   links tcmalloc into TARGET when it was found
find_library(TCMALLOC_MINIMAL_LIBRARY NAMES tcmalloc_minimal)
if(TCMALLOC_MINIMAL_LIBRARY)
  message(STATUS "tcmalloc: ${TCMALLOC_MINIMAL_LIBRARY} (the tuner's heap)")
else()
  message(STATUS "tcmalloc not found: the tuner uses glibc's malloc, about 1.5x slower per round "
                 "(scripts/setup.sh installs libgoogle-perftools-dev)")
endif()

function(tessera_link_fast_malloc target)
  if(TCMALLOC_MINIMAL_LIBRARY)
    # Nothing calls tcmalloc by name: it replaces malloc by being linked, which --as-needed
    # (the project's default) would drop.
    target_link_libraries(${target} PRIVATE "-Wl,--push-state,--no-as-needed" ${TCMALLOC_MINIMAL_LIBRARY}
                          "-Wl,--pop-state")
  endif()
endfunction()
