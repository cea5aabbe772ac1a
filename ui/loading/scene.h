// What the views show: one graph, a forward/backward pair joined on one time axis (the
// forward's profile, then the backward's raised by its baseline, as get_peak_memory counts it),
// or the whole step (fxmem::whole_step: one segment per graph run, raised by what it carries).
// Built off the GUI thread and shared read-only (std::shared_ptr<const Scene>).
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/attribution.h>
#include <fxmem/layout.h>
#include <fxmem/model.h>
#include <fxmem/step_modules.h>
#include <fxmem/timeline.h>
#include <fxmem/whole_step.h>

#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

// Which part of a file to show: a graph, or a pair joined. graph < 0 and pair < 0: the default,
// the whole step when the file has one, else the first graph (a single graph is what the
// schedule editor works on). buildScene resolves it: wholeStep says which it chose.
struct SceneRequest {
    int graph = -1;
    int pair = -1;
    DeviceFilter filter = DeviceFilter::NonCpu;
    bool wholeStep = false; // resolved: graph and pair are -1
    // A value per symbol of a file with symbolic sizes (fxmem/symbolic.h): the scene is built from
    // a copy of the file bound at them. Empty, or not one per symbol: the file as it is.
    std::vector<std::int64_t> sizes;
};

// A node of a scene: the segment (graph) and the node within it.
struct NodeRef {
    int segment = -1;
    fxmem::NodeId node;
    bool valid() const { return segment >= 0 && node.valid(); }
    friend bool operator==(const NodeRef&, const NodeRef&) = default;
};

// A segment of the scene's fxmem::Timeline (the same index) with what the views add to it: its
// analysis, offset, baseline and baseline storages are the timeline segment's.
struct Segment {
    std::shared_ptr<const GraphAnalysis> analysis;
    std::shared_ptr<const fxmem::GraphLayout> layout;
    std::int64_t offset = 0;                        // global step of this graph's profile index 0
    std::int64_t baseline = 0;                      // bytes under this graph's profile (backward of a joined pair)
    std::vector<fxmem::StorageId> baselineStorages; // the forward outputs that make the baseline
    // Per node, counted bytes it allocates and frees in the profile (for colouring by change).
    std::vector<std::int64_t> allocated, freed;
    // Each storage's role and owner module, and this graph's module tree.
    std::shared_ptr<const fxmem::Attribution> attribution;
    // The whole step: the step entry this segment runs (segment i runs entry i), its name
    // ("region0.forward #2 (blocks.1)") and its module prefix; baseline is the counted bytes of
    // what it carries, Timeline::carried(i) (made on demand: a copy per run is quadratic).
    int entry = -1;
    std::string name;
    QString modulePrefix;
};

// A qualified module name relative to a module prefix: "blocks.1.attn" under "blocks.1" is
// "attn", the prefix itself "" (the model); none when the name lies outside the prefix. With no
// prefix the name as it is.
std::optional<std::string> relativeModule(const QString& prefix, const QString& qualified);

struct Scene {
    std::shared_ptr<const fxmem::GraphFile> file; // bound at request.sizes
    // The file as it was read, the same for every binding of its sizes: what tells another view
    // of one capture from another file.
    std::shared_ptr<const fxmem::GraphFile> loaded;
    QString path;
    SceneRequest request; // resolved: graph or pair set
    // The segments on one time axis (core's: offsets, baselines, the joined profile, live_at).
    std::shared_ptr<const fxmem::Timeline> timeline;
    std::vector<Segment> segments;
    std::vector<std::int64_t> profile; // global: the segments' profiles, baseline included (the timeline's)
    std::int64_t peak = 0;
    std::size_t peakStep = 0;
    std::optional<fxmem::PeakMemory> pairPeak;
    std::shared_ptr<const fxmem::RoleAssignment> roles; // the file's storage roles, resolved once
    std::shared_ptr<const fxmem::WholeStep> step;       // the whole step's numbers; null otherwise

    bool wholeStep() const { return step != nullptr; }
    // The same graphs of the same capture, perhaps bound at other sizes: node for node the same
    // segments and layouts (sizes move no node), so views may keep their zoom and cursor.
    bool sameGraphs(const Scene& other) const {
        return loaded == other.loaded && request.graph == other.request.graph && request.pair == other.request.pair &&
               request.wholeStep == other.request.wholeStep;
    }
    // Several graphs on one time axis (a pair or the whole step): nothing to reorder.
    bool joined() const { return segments.size() > 1 || wholeStep(); }
    // A segment's name on the timeline and in the views: the step entry's, else its graph's.
    QString segmentName(std::size_t segment) const;
    // A module of a segment's tree, qualified by the segment's module prefix ("blocks.1.attn").
    QString moduleName(std::size_t segment, std::string_view module) const;
    // The reverse: the module of a segment's tree that a qualified name names, npos when the name
    // lies outside the segment's prefix or its tree. A region run under two prefixes answers
    // "blocks.1.attn" in the run of blocks.1 only.
    std::uint32_t findModule(std::size_t segment, const QString& qualified) const;
    bool empty() const { return segments.empty(); }
    QString title() const; // graph name, or "fwd + bwd"
    std::size_t nodeCount() const;
    // The module depth of the model's layers over all segments (fxmem::layer_depth): the timeline's
    // bands by module and the graph view's stripes both start there. 0 without modules.
    std::uint32_t layerDepth() const;

    struct Where {
        int segment = -1;     // -1: outside every segment
        std::size_t step = 0; // profile index within the segment
    };
    Where locate(std::int64_t globalStep) const; // the timeline's locate, O(log segments)
    // Global step of a node's allocation point.
    std::int64_t globalStep(int segment, fxmem::NodeId node) const;
};

// The whole step's modules at one run (core's fxmem::StepModules, the rule of `breakdown
// --whole-step --by module`) over the scene's attributions; `carried`: what the run carries
// (Timeline::carried, LiveAtStep::carried). The scene must be the whole step.
std::shared_ptr<const fxmem::StepModules> wholeStepModules(const Scene& scene, std::uint32_t segment,
                                                           std::span<const fxmem::CarriedStorage> carried);

// Binds a copy of the file at request.sizes when they differ from what it holds, then runs
// GraphAnalysis::compute and the layout for the requested view. `loaded`: the file as read
// (Scene::loaded), when `file` is one of its bindings; null: `file` itself. Throws fxmem::Error
// (a binding outside a symbol's range, or an overflow at it, names the symbol or the storage),
// and fxmem::Cancelled when `cancelled` answers true (polled inside the analysis and the layout).
std::shared_ptr<const Scene> buildScene(std::shared_ptr<const fxmem::GraphFile> file, const QString& path,
                                        SceneRequest request, const fxmem::CancelCheck& cancelled = {},
                                        std::shared_ptr<const fxmem::GraphFile> loaded = {});
