# gen_selected_ops: the selective-build CMake API.
#
#   gen_selected_ops(
#     LIB_NAME <name>                 # the library to create
#     KERNEL_LIBRARIES <yaml>...      # functions.yaml of each kernel library
#     KERNEL_SOURCES <cpp>...         # the kernel library sources
#     [OPS_SCHEMA_YAML <yaml>...]     # selected_operators.yaml, or a functions.yaml
#                                     # whose ops are all selected
#     [ROOT_OPS "aten::add.out,aten::mm.out"]
#     [INCLUDE_ALL_OPS ON|OFF]
#     [DTYPE_SELECTIVE ON|OFF]        # compile out dtypes no selected model uses
#     [LENIENT_CALLS ON|OFF]          # traced-only selections: an unselected declared
#                                     # call fails when made instead of at load
#     [PREFERRED_LIBRARY <yaml>]      # the optimized library: its kernels replace the
#     [PREFER_OPS ALL|"op,op"]        # others' for these ops (the replaced ones stay
#                                     # compiled as their fallback)
#     [BACKENDS <symbol>...]          # backends to register (sb/backend.h): the symbols of
#     [BACKEND_SOURCES <cpp>...]      # their `const sb::Backend`s, and their sources
#     [BUNDLED_BACKEND_SOURCES <cpp>...])  # the runtime's own backends (native/backends/<ns>/): one
#                                     # is registered and compiled when its node kinds are
#                                     # selected; SB_SELECTED_BACKENDS lists what was
#
# The sources of selection are combined as a union. The selection is
# resolved when CMake configures (and again whenever an input changes), so
# only the kernels it chooses are compiled. The result is a static library
# holding the generated registration and those kernels, built with the
# dtype-selection header and the list of registered ops (sb/selected_ops.h);
# the merged selection is written next to them as
# selected_operators.yaml. A selected op that no library implements fails
# with a message naming it.
function(gen_selected_ops)
  cmake_parse_arguments(ARG "" "LIB_NAME;ROOT_OPS;INCLUDE_ALL_OPS;DTYPE_SELECTIVE;LENIENT_CALLS;PREFERRED_LIBRARY;PREFER_OPS"
                        "KERNEL_LIBRARIES;OPS_SCHEMA_YAML;KERNEL_SOURCES;BACKENDS;BACKEND_SOURCES;BUNDLED_BACKEND_SOURCES" ${ARGN})
  if(NOT ARG_LIB_NAME OR NOT ARG_KERNEL_LIBRARIES OR NOT ARG_KERNEL_SOURCES)
    message(FATAL_ERROR "gen_selected_ops needs LIB_NAME, KERNEL_LIBRARIES and KERNEL_SOURCES")
  endif()

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${ARG_LIB_NAME}")
  set(cmd "${Python3_EXECUTABLE}" -m bot.selection.codegen --out-dir "${out_dir}")
  foreach(yaml IN LISTS ARG_KERNEL_LIBRARIES)
    list(APPEND cmd --functions-yaml "${yaml}")
  endforeach()
  foreach(yaml IN LISTS ARG_OPS_SCHEMA_YAML)
    list(APPEND cmd --ops-yaml "${yaml}")
  endforeach()
  foreach(source IN LISTS ARG_KERNEL_SOURCES)
    list(APPEND cmd --kernel-source "${source}")
  endforeach()
  if(ARG_ROOT_OPS)
    list(APPEND cmd --root-ops "${ARG_ROOT_OPS}")
  endif()
  if(ARG_INCLUDE_ALL_OPS)
    list(APPEND cmd --include-all-ops)
  endif()
  if(ARG_DTYPE_SELECTIVE)
    list(APPEND cmd --dtype-selective)
  endif()
  if(ARG_LENIENT_CALLS)
    list(APPEND cmd --lenient-calls)
  endif()
  if(ARG_PREFERRED_LIBRARY)
    list(APPEND cmd --preferred-yaml "${ARG_PREFERRED_LIBRARY}" --prefer-ops "${ARG_PREFER_OPS}")
  endif()
  foreach(backend IN LISTS ARG_BACKENDS)
    list(APPEND cmd --backend "${backend}")
  endforeach()
  foreach(source IN LISTS ARG_BUNDLED_BACKEND_SOURCES)
    list(APPEND cmd --bundled-backend-source "${source}")
  endforeach()

  execute_process(
    COMMAND ${cmd}
    WORKING_DIRECTORY "${SB_REPO_ROOT}"
    RESULT_VARIABLE status
    ERROR_VARIABLE stderr)
  if(NOT status EQUAL 0)
    string(STRIP "${stderr}" stderr)
    message(FATAL_ERROR "${stderr}")
  endif()
  # Re-resolve when the selection, the libraries or the generator change.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${ARG_KERNEL_LIBRARIES} ${ARG_OPS_SCHEMA_YAML} ${ARG_KERNEL_SOURCES} ${ARG_PREFERRED_LIBRARY} ${ARG_BACKEND_SOURCES}
    ${ARG_BUNDLED_BACKEND_SOURCES}
    "${SB_REPO_ROOT}/bot/selection/codegen.py" "${SB_REPO_ROOT}/bot/selection/oplist.py"
    "${SB_REPO_ROOT}/bot/selection/resolve.py" "${SB_REPO_ROOT}/bot/selection/kernel_library.py")

  file(STRINGS "${out_dir}/selected_sources.txt" selected_sources)
  # The backends registered: those named, and the bundled ones whose node kinds are selected.
  file(STRINGS "${out_dir}/selected_backends.txt" selected_backends)
  set(SB_SELECTED_BACKENDS "${selected_backends}" PARENT_SCOPE)
  add_library(${ARG_LIB_NAME} STATIC "${out_dir}/register_kernels.cpp" ${selected_sources} ${ARG_BACKEND_SOURCES})
  target_link_libraries(${ARG_LIB_NAME} PUBLIC sb_core)
  # The header is found through the include path, not by an absolute path in a
  # define, so ccache can relate compiles in different checkouts.
  # "util/x.h" is the portable library's helper; the optimized library's are named from
  # kernels/: "optimized/simd/x.h", "optimized/microkernels/x.h", "optimized/operators/x.h".
  target_include_directories(${ARG_LIB_NAME} PRIVATE "${SB_KERNELS_DIR}/portable" "${SB_KERNELS_DIR}" "${out_dir}")
  target_compile_definitions(${ARG_LIB_NAME} PRIVATE "SB_SELECTED_DTYPES_HEADER=\"selected_dtypes.h\""
                                                     "SB_SELECTED_OPS_HEADER=\"selected_op_list.h\"")
endfunction()
