# Core's parts: one OBJECT library per folder of core/src, each with its own source list.
# fxmem_core (core/CMakeLists.txt) is all of them in one static library; the loader fuzzer
# (fuzz/CMakeLists.txt) builds the model and io parts again, with its sanitizers and coverage.
#
# The folders, and why a file is where it is:
#   model/        the graph model on dense ids (model.cpp), byte units, op categories (a node's
#                 target classified: a property of the node, used by attribution and the optimizer),
#                 the legality of an order (schedule_check.cpp: the loader checks the file's named
#                 schedules) and quote.h, the one way names are quoted in messages.
#   io/           format v1 read and written, SCHED files, the JSON helpers they share.
#   estimator/    the port of Inductor's memory_estimator.py (alias info, policy, MemoryTracker,
#                 the pair's backward peak), a schedule's score and the live-set index built on it.
#   attribution/  bytes by role and by module, the module tree.
#   optimize/     IncrementalSchedule (edited orders scored move by move) and the optimizer's
#                 baselines, bound, exact and heuristic searches, suggestions.
#   remat/        recompute on joint graphs: partition simulated, budgets, search, plan files.
#   views/        what a view or a command shows of a graph, assembled from the parts above:
#                 GraphAnalysis, the graph layout, order comparison, the whole step, the
#                 joined timeline of a view (timeline.cpp: a graph, a pair, the whole step), two
#                 captures' peaks compared (peak_place, peak_diff), the layered dataflow layout
#                 by module (dataflow_*: layering, crossings, coordinates, routing, modules;
#                 dataflow_scene: several graphs side by side).
#   allocator/    a simulation of PyTorch's CUDA caching allocator (device_allocator_sim.cpp: the
#                 rules of DeviceCachingAllocator; caching_allocator.cpp: events checked and replayed,
#                 segments at the reserved peak; alloc_conf.cpp: PYTORCH_CUDA_ALLOC_CONF parsed). It
#                 needs no other part: it replays malloc/free events, not a graph.
#   export/       the timeline of a view written for other viewers: Chrome-trace JSON (Perfetto)
#                 and PyTorch's memory snapshot pickle (memory_viz), with the pickle writer; it
#                 writes files atomically, so it needs io beside views.
# Dependencies go one way (each part needs only those after its arrow):
#   model <- io, estimator;  estimator <- attribution, optimize;  optimize, io <- remat;
#   attribution, optimize, allocator, remat <- views (the reserved measure, the step under a plan);  views, io <- export.
#   allocator needs no other part.
# The fuzzer links model and io alone, so io cannot come to need the estimator or the optimizer
# without its build failing.
set(FXMEM_CORE_DIR ${CMAKE_CURRENT_LIST_DIR})

set(FXMEM_CORE_MODEL_SOURCES model/model.cpp model/op_category.cpp model/collectives.cpp model/schedule_check.cpp
    model/units.cpp model/symbolic_expr.cpp model/symbolic_bind.cpp model/symbolic_fit.cpp model/program.cpp
    model/display_text.cpp model/symbol_words.cpp)
set(FXMEM_CORE_IO_SOURCES
    io/io.cpp io/io_reader.cpp io/io_writer.cpp io/json_text.cpp io/reader_distributed.cpp io/reader_entities.cpp io/reader_file_end.cpp
    io/reader_messages.cpp io/reader_program.cpp io/reader_sax.cpp io/reader_symbolic.cpp io/reader_values.cpp io/schedule_io.cpp
    io/capture_info.cpp)
set(FXMEM_CORE_ESTIMATOR_SOURCES
    estimator/estimator_alias.cpp estimator/estimator_pair.cpp estimator/estimator_policy.cpp
    estimator/estimator_profile.cpp estimator/estimator_tracker.cpp estimator/liveset.cpp estimator/schedule.cpp)
set(FXMEM_CORE_ATTRIBUTION_SOURCES
    attribution/attribution.cpp attribution/attribution_roles.cpp attribution/attribution_tree.cpp)
set(FXMEM_CORE_OPTIMIZE_SOURCES
    optimize/incremental.cpp optimize/optimize_baselines.cpp optimize/optimize_bound.cpp optimize/optimize_exact.cpp
    optimize/optimize_problem.cpp optimize/optimize_search.cpp optimize/optimize_suggest.cpp)
set(FXMEM_CORE_REMAT_SOURCES
    remat/remat_budgets.cpp remat/remat_joint.cpp remat/remat_materialize.cpp remat/remat_partition.cpp
    remat/remat_plan.cpp remat/remat_search.cpp)
set(FXMEM_CORE_VIEWS_SOURCES views/analysis.cpp views/compare.cpp views/layout.cpp views/peak_diff.cpp views/peak_place.cpp
    views/whole_step.cpp views/timeline.cpp views/dataflow_coords.cpp views/dataflow_crossing.cpp views/dataflow_drawing.cpp
    views/dataflow_layering.cpp views/dataflow_layout.cpp views/dataflow_modules.cpp views/dataflow_routing.cpp
    views/dataflow_scene.cpp views/view_spec.cpp views/program_live.cpp views/timeline_events.cpp
    views/reserved_view.cpp views/step_remat.cpp views/step_modules.cpp)
set(FXMEM_CORE_ALLOCATOR_SOURCES allocator/alloc_conf.cpp allocator/caching_allocator.cpp
    allocator/device_allocator_sim.cpp)
set(FXMEM_CORE_EXPORT_SOURCES export/export_memory_viz.cpp export/export_perfetto.cpp export/export_timeline.cpp
    export/pickle_writer.cpp export/profile_csv.cpp)

# fxmem_core_part(<target> <PART> [DEPENDS <targets>...]): an OBJECT library of FXMEM_CORE_<PART>_SOURCES.
# Private headers are included by their path under core/src ("io/json_text.h").
function(fxmem_core_part target part)
  cmake_parse_arguments(P "" "" "DEPENDS" ${ARGN})
  set(sources ${FXMEM_CORE_${part}_SOURCES})
  list(TRANSFORM sources PREPEND ${FXMEM_CORE_DIR}/src/)
  add_library(${target} OBJECT ${sources})
  target_include_directories(${target} PUBLIC ${FXMEM_CORE_DIR}/include PRIVATE ${FXMEM_CORE_DIR}/src)
  target_link_libraries(${target} PUBLIC nlohmann_json::nlohmann_json ${P_DEPENDS})
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

# The model and io parts as <prefix>_model and <prefix>_io (the fuzzer's own copies use this too).
function(fxmem_core_io_parts prefix)
  fxmem_core_part(${prefix}_model MODEL)
  fxmem_core_part(${prefix}_io IO DEPENDS ${prefix}_model)
endfunction()
