// export_timeline: one graph, a joined pair or the whole step as one timeline with bytes by role.
#include "export_timeline.h"

#include "commands.h"

#include "fxmem/analysis.h"
#include "fxmem/error.h"
#include "fxmem/liveset.h"
#include "fxmem/whole_step.h"

#include <algorithm>
#include <array>
#include <map>

namespace fxmem::cli {

namespace {

using RoleBytes = std::array<std::int64_t, kStorageRoleCount>;

struct Builder {
    ExportTimeline out;
    std::vector<std::uint32_t> role_of; // per StorageId: its resolved role

    explicit Builder(const GraphFile& file) {
        const RoleAssignment roles = resolve_roles(file);
        role_of.assign(roles.role.size(), 0);
        for (std::size_t s = 0; s < roles.role.size(); ++s) role_of[s] = static_cast<std::uint32_t>(roles.role[s]);
    }

    // Appends a graph's profile (by role, plus what lives outside it) as a section.
    void add(std::string name, std::string phase, std::uint32_t graph, const LiveSetIndex& index,
             const RoleBytes& outside) {
        ExportSection s;
        s.name = std::move(name);
        s.phase = std::move(phase);
        s.graph = graph;
        s.begin = out.total.size();
        s.length = index.profile_size();
        const std::vector<std::int64_t> rows = index.profile_by(role_of, kStorageRoleCount);
        for (std::size_t i = 0; i < s.length; ++i) {
            std::int64_t total = 0;
            for (std::size_t r = 0; r < kStorageRoleCount; ++r) {
                const std::int64_t v = rows[i * kStorageRoleCount + r] + outside[r];
                out.by_role.push_back(v);
                total += v;
            }
            out.total.push_back(total);
            s.step_node.push_back(index.node_at(i));
        }
        out.sections.push_back(std::move(s));
    }

    RoleBytes role_bytes(const GraphFile& file, const std::vector<StorageId>& storages) const {
        RoleBytes b{};
        for (StorageId s : storages) b[role_of[s.index()]] += file.nbytes(s);
        return b;
    }
};

std::string phase_of(GraphKind kind) {
    switch (kind) {
    case GraphKind::Forward:
    case GraphKind::Inference: return "forward";
    case GraphKind::Backward: return "backward";
    default: return "other";
    }
}

void graph_timeline(const std::shared_ptr<const GraphFile>& file, const Args& args, Builder& b) {
    const Graph& g = select_graph(*file, args);
    const auto index = static_cast<int>(&g - file->graphs.data());
    const auto a = GraphAnalysis::compute(file, index, device_filter(args), {}, PairContext::Standalone);
    b.out.scope = "graph";
    b.add(g.name, phase_of(g.kind), static_cast<std::uint32_t>(index), a->live(), RoleBytes{});
}

void pair_timeline(const std::shared_ptr<const GraphFile>& file, std::size_t k, const Args& args, Builder& b) {
    if (k >= file->pairs.size())
        throw Error(file->source + ": no pair " + std::to_string(k) + " (the file has " +
                    std::to_string(file->pairs.size()) + (file->pairs.size() == 1 ? " pair)" : " pairs)"));
    const GraphAnalysis::Pair pa = GraphAnalysis::computePair(file, static_cast<int>(k), device_filter(args));
    std::vector<StorageId> baseline;
    for (StorageId s : pa.baselineStorages)
        if (pa.forward->counted()[s.index()]) baseline.push_back(s);
    b.out.scope = "pair";
    b.add(pa.forward->graph().name, "forward", file->pairs[k].forward, pa.forward->live(), RoleBytes{});
    b.add(pa.backward->graph().name, "backward", file->pairs[k].backward, pa.backward->live(),
          b.role_bytes(*file, baseline));
}

void step_timeline(const GraphFile& file, const Args& args, Builder& b) {
    const StorageMask counted = devices_counted(file, args);
    const WholeStep ws = whole_step(file, counted);
    struct Index {
        AliasInfo alias;
        std::unique_ptr<LiveSetIndex> live;
    };
    std::map<std::uint32_t, Index> indexes; // a graph run several times is indexed once
    std::size_t last_backward = 0;
    bool any_backward = false;
    for (std::size_t e = 0; e < ws.segments.size(); ++e)
        if (file.graphs[ws.segments[e].graph].kind == GraphKind::Backward) {
            last_backward = e;
            any_backward = true;
        }
    b.out.scope = "whole_step";
    for (std::uint32_t s = 0; s < ws.segments.size(); ++s) {
        const StepSegment& seg = ws.segments[s];
        Index& ix = indexes[seg.graph];
        if (!ix.live) {
            ix.alias = build_alias_info(file, file.graphs[seg.graph]);
            ix.live = std::make_unique<LiveSetIndex>(file, file.graphs[seg.graph], ix.alias,
                                                     step_releasable(file, seg.graph), counted);
        }
        RoleBytes outside{};
        for (const CarriedStorage& c : carried_at(ws, s)) outside[b.role_of[c.storage.index()]] += c.bytes;
        const GraphKind kind = file.graphs[seg.graph].kind;
        const std::string phase = any_backward && s > last_backward ? "optimizer" : phase_of(kind);
        b.add(step_entry_name(file, file.step[seg.entry]), phase, seg.graph, *ix.live, outside);
    }
}

} // namespace

ExportTimeline export_timeline(std::shared_ptr<const GraphFile> file, const Args& args) {
    const int modes = int(args.has("--graph")) + int(args.has("--pair")) + int(args.has("--whole-step"));
    if (modes > 1) throw UsageError(args.command + ": give one of --graph, --pair and --whole-step");
    Builder b(*file);
    if (args.has("--whole-step") || (modes == 0 && !file->step.empty()))
        step_timeline(*file, args, b);
    else if (args.has("--pair") || (modes == 0 && !file->pairs.empty()))
        pair_timeline(file, args.has("--pair") ? parse_index("--pair", *args.value("--pair")) : 0, args, b);
    else
        graph_timeline(file, args, b);
    ExportTimeline& t = b.out;
    t.peak_index = static_cast<std::size_t>(std::max_element(t.total.begin(), t.total.end()) - t.total.begin());
    t.peak = t.total.empty() ? 0 : t.total[t.peak_index];
    return std::move(b.out);
}

} // namespace fxmem::cli
