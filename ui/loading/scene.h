// What the views show: one graph, or a forward/backward pair joined on one time axis (the
// forward's profile, then the backward's raised by its baseline, as get_peak_memory counts it).
// Built off the GUI thread and shared read-only (std::shared_ptr<const Scene>).
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/attribution.h>
#include <fxmem/layout.h>
#include <fxmem/model.h>

#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

// Which part of a file to show: a graph, or a pair joined. graph < 0 and pair < 0: the default,
// the first graph (a single graph is what the schedule editor works on).
struct SceneRequest {
    int graph = -1;
    int pair = -1;
    DeviceFilter filter = DeviceFilter::NonCpu;
};

// A node of a scene: the segment (graph) and the node within it.
struct NodeRef {
    int segment = -1;
    fxmem::NodeId node;
    bool valid() const { return segment >= 0 && node.valid(); }
    friend bool operator==(const NodeRef&, const NodeRef&) = default;
};

struct Segment {
    std::shared_ptr<const GraphAnalysis> analysis;
    std::shared_ptr<const fxmem::GraphLayout> layout;
    std::int64_t offset = 0;                        // global step of this graph's profile index 0
    std::int64_t baseline = 0;                      // bytes under this graph's profile (backward of a joined pair)
    std::vector<fxmem::StorageId> baselineStorages; // the forward outputs that make the baseline
    // Per node, counted bytes it allocates and frees in the profile (for colouring by change).
    std::vector<std::int64_t> allocated, freed;
    // Each storage's role and owner module, and this graph's module tree (issue 9).
    std::shared_ptr<const fxmem::Attribution> attribution;
};

struct Scene {
    std::shared_ptr<const fxmem::GraphFile> file;
    QString path;
    SceneRequest request; // resolved: graph or pair set
    std::vector<Segment> segments;
    std::vector<std::int64_t> profile; // global: the segments' profiles, baseline included
    std::int64_t peak = 0;
    std::size_t peakStep = 0;
    std::optional<fxmem::PeakMemory> pairPeak;
    std::shared_ptr<const fxmem::RoleAssignment> roles; // the file's storage roles, resolved once

    bool joined() const { return segments.size() > 1; }
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
    Where locate(std::int64_t globalStep) const;
    // Global step of a node's allocation point.
    std::int64_t globalStep(int segment, fxmem::NodeId node) const;
};

// Runs GraphAnalysis::compute and the layout for the requested view. Throws fxmem::Error, and
// fxmem::Cancelled when `cancelled` answers true (polled inside the analysis and the layout).
std::shared_ptr<const Scene> buildScene(std::shared_ptr<const fxmem::GraphFile> file, const QString& path,
                                        SceneRequest request, const fxmem::CancelCheck& cancelled = {});
