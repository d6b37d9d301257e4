# `cmake --install`: Tessera as a package a plug-in builds against (find_package(Tessera)).
#
# Installs the public headers — the closure of the includes of the headers a plug-in needs
# (agent and cost-model interfaces and registries, the task/env view, candidates, records),
# computed here so that it never misses one and never ships one by accident; configuring
# fails if any of them includes LLVM, LibTorch, ONNX or CUDA — the libraries, the `tessera`
# and `tessera-worker` programs (the host a plug-in is loaded into) and TesseraConfig.cmake
# with the `Tessera::plugin` target. A plug-in links no Tessera library: its references
# resolve against the host program, which exports its symbols (ENABLE_EXPORTS), so there is
# one registry per process.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TESSERA_PUBLIC_HEADER_ROOTS
  agents/plugin.h agents/registry.h agents/search_agent.h agents/conformance.h
  env/cost_model.h env/cost_model_registry.h env/param.h env/task_env.h env/tuning_task.h
  env/candidate_features.h runtime/records.h schedule/features.h schedule/step_json.h)

# The project headers `roots` include, transitively.
function(tessera_header_closure out)
  set(todo ${ARGN})
  set(seen "")
  while(todo)
    list(POP_FRONT todo header)
    if(header IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${header})
    file(STRINGS ${PROJECT_SOURCE_DIR}/${header} lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line IN LISTS lines)
      if(line MATCHES "#[ \t]*include[ \t]*<(llvm|torch|ATen|c10|onnx|cuda|nvrtc)[/.>]")
        message(FATAL_ERROR "public header ${header} includes ${CMAKE_MATCH_1}: "
                            "keep it out of the headers plug-ins build against (cmake/install.cmake)")
      endif()
      if(line MATCHES "#[ \t]*include[ \t]*\"([a-z_]+/[a-z_/]+\\.h)\"")
        list(APPEND todo ${CMAKE_MATCH_1})
      endif()
    endforeach()
  endwhile()
  # Editing a public header re-runs this scan.
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${seen})
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

tessera_header_closure(TESSERA_PUBLIC_HEADERS ${TESSERA_PUBLIC_HEADER_ROOTS})
foreach(header IN LISTS TESSERA_PUBLIC_HEADERS)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera/${dir})
endforeach()

install(TARGETS tessera tessera-worker RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS tessera_schedule tessera_graph tessera_runtime tessera_cuda_run tessera_cuda tessera_env tessera_agents tessera_proxy
                tessera_rl tessera_experiments
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}/tessera)
# The installed programs find LLVM and LibTorch where the build found them.
set_target_properties(tessera tessera-worker PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TesseraConfig.cmake.in
  ${PROJECT_BINARY_DIR}/TesseraConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TesseraConfigVersion.cmake
  VERSION 0.1.0 COMPATIBILITY ExactVersion)
install(FILES ${PROJECT_BINARY_DIR}/TesseraConfig.cmake ${PROJECT_BINARY_DIR}/TesseraConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
