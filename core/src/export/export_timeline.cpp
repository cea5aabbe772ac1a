// export_timeline: one graph, a joined pair or the whole step as one timeline with bytes by role
// and each storage's stay on it.
#include "fxmem/export.h"

#include "fxmem/error.h"
#include "fxmem/liveset.h"
#include "fxmem/timeline.h"
#include "fxmem/whole_step.h"

#include <algorithm>
#include <array>
#include <deque>
#include <span>
#include <unordered_map>

namespace fxmem {

namespace {

using RoleBytes = std::array<std::int64_t, kStorageRoleCount>;

// A storage live during part of one section: [begin, end) in timeline indices. `key` (0: none)
// names what it stands for across sections where the storage id alone is ambiguous (the whole
// step's carried items: 1 + their index in WholeStep::carried).
struct Piece {
    StorageId storage;
    std::size_t begin = 0, end = 0;
    NodeId allocator;
    std::uint64_t key = 0;
};

struct Builder {
    const GraphFile& file;
    ExportTimeline out;
    std::vector<std::size_t> open; // stays that reach the end of the last section added

    explicit Builder(const GraphFile& f) : file(f) {
        const RoleAssignment roles = resolve_roles(file);
        out.role_of.assign(roles.role.size(), 0);
        for (std::size_t s = 0; s < roles.role.size(); ++s) out.role_of[s] = static_cast<std::uint32_t>(roles.role[s]);
    }

    // Appends a graph's profile (by role, plus `outside`: storages live through it from elsewhere)
    // as a section. `keys` gives the key of a storage the graph holds from the start (begin 0).
    void add(std::string name, std::string phase, GraphId graph, std::string module_prefix, const LiveSetIndex& index,
             std::span<const Piece> outside, const std::unordered_map<std::int32_t, std::uint64_t>& keys = {}) {
        ExportSection s;
        s.name = std::move(name);
        s.phase = std::move(phase);
        s.graph = graph;
        s.module_prefix = std::move(module_prefix);
        s.begin = out.total.size();
        s.length = index.profile_size();
        RoleBytes outside_bytes{};
        for (const Piece& p : outside) outside_bytes[out.role_of[p.storage.index()]] += file.nbytes(p.storage);
        const std::vector<std::int64_t> rows = index.profile_by(out.role_of, kStorageRoleCount);
        for (std::size_t i = 0; i < s.length; ++i) {
            std::int64_t total = 0;
            for (std::size_t r = 0; r < kStorageRoleCount; ++r) {
                const std::int64_t v = rows[i * kStorageRoleCount + r] + outside_bytes[r];
                out.by_role.push_back(v);
                total += v;
            }
            out.total.push_back(total);
            s.step_node.push_back(index.node_at(i));
        }
        std::vector<Piece> pieces;
        for (const Piece& p : outside) pieces.push_back({p.storage, s.begin, s.begin + s.length, p.allocator, p.key});
        for (const LiveSetIndex::Range& r : index.ranges()) {
            Piece p{r.storage, s.begin + static_cast<std::size_t>(r.begin), s.begin + static_cast<std::size_t>(r.end),
                    r.allocator, 0};
            if (r.begin == 0)
                if (const auto it = keys.find(r.storage.value); it != keys.end()) p.key = it->second;
            pieces.push_back(p);
        }
        stays(pieces, static_cast<std::uint32_t>(out.sections.size()), s.begin, s.begin + s.length);
        out.sections.push_back(std::move(s));
    }

    // Continues the stays open at the section's start with its pieces that start there: the same
    // key first, then the same storage (first opened, first taken); the rest begin new stays.
    void stays(const std::vector<Piece>& pieces, std::uint32_t section, std::size_t begin, std::size_t end) {
        std::unordered_map<std::uint64_t, std::size_t> by_key;
        std::unordered_map<std::int32_t, std::deque<std::size_t>> by_storage;
        std::vector<char> taken(out.stays.size(), 0);
        for (std::size_t k : open) {
            if (keys_.size() > k && keys_[k]) by_key.emplace(keys_[k], k);
        }
        std::vector<std::size_t> continued(pieces.size(), SIZE_MAX);
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            if (pieces[i].begin != begin || !pieces[i].key) continue;
            if (const auto it = by_key.find(pieces[i].key); it != by_key.end() && !taken[it->second]) {
                continued[i] = it->second;
                taken[it->second] = 1;
            }
        }
        for (std::size_t k : open)
            if (!taken[k]) by_storage[out.stays[k].storage.value].push_back(k);
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            if (pieces[i].begin != begin || continued[i] != SIZE_MAX) continue;
            const auto it = by_storage.find(pieces[i].storage.value);
            if (it == by_storage.end() || it->second.empty()) continue;
            continued[i] = it->second.front();
            it->second.pop_front();
        }
        std::vector<std::size_t> next;
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            const Piece& p = pieces[i];
            std::size_t k = continued[i];
            if (k == SIZE_MAX) {
                k = out.stays.size();
                out.stays.push_back({p.storage, p.begin, p.end, section, p.allocator});
                keys_.push_back(p.key);
            } else {
                out.stays[k].end = p.end;
                if (p.key) keys_[k] = p.key;
            }
            if (p.end == end) next.push_back(k);
        }
        open = std::move(next);
    }

    std::vector<std::uint64_t> keys_; // per stay: the key of its last piece
};

std::string phase_of(GraphKind kind) {
    switch (kind) {
    case GraphKind::Forward:
    case GraphKind::Inference: return "forward";
    case GraphKind::Backward: return "backward";
    default: return "other";
    }
}

// A graph or a pair as fxmem::Timeline joins it (the baseline under the backward, its storages
// outside it); the view's schedule reorders one graph.
void graph_timeline(const std::shared_ptr<const GraphFile>& file, const ViewSpec& view, Builder& b,
                    const CancelCheck& cancelled) {
    const Timeline t = open_view(file, view, cancelled);
    b.out.scope = ViewScope::Graph;
    const Graph& g = file->graph(view.graph);
    b.add(g.name, phase_of(g.kind), view.graph, "", t.segments()[0].live(), {});
}

void pair_timeline(const std::shared_ptr<const GraphFile>& file, const ViewSpec& view, Builder& b,
                   const CancelCheck& cancelled) {
    const Timeline t = open_view(file, view, cancelled);
    const TimelineSegment& fwd = t.segments()[0];
    const TimelineSegment& bwd = t.segments()[1];
    std::vector<Piece> baseline;
    for (StorageId s : bwd.baseline_storages)
        baseline.push_back({s, 0, 0, fwd.analysis->alias().allocator[s.index()], 0});
    b.out.scope = ViewScope::Pair;
    b.out.pair = view.pair;
    b.add(file->graph(fwd.graph).name, "forward", fwd.graph, "", fwd.live(), {});
    b.add(file->graph(bwd.graph).name, "backward", bwd.graph, "", bwd.live(), baseline);
}

void step_timeline(const std::shared_ptr<const GraphFile>& file, const ViewSpec& view, Builder& b,
                   const CancelCheck& cancelled) {
    const Timeline t = open_view(file, view, cancelled);
    const WholeStep& ws = *t.step();
    std::size_t last_backward = 0;
    bool any_backward = false;
    for (std::size_t e = 0; e < ws.segments.size(); ++e)
        if (file->graph(ws.segments[e].graph).kind == GraphKind::Backward) {
            last_backward = e;
            any_backward = true;
        }
    b.out.scope = ViewScope::WholeStep;
    for (std::uint32_t s = 0; s < ws.segments.size(); ++s) {
        throw_if_cancelled(cancelled);
        const StepSegment& seg = ws.segments[s];
        // What the segment carries (as carried_at), and the items its graph holds as inputs.
        const auto held = std::span(ws.held).subspan(ws.held_begin[s], ws.held_begin[s + 1] - ws.held_begin[s]);
        std::vector<Piece> outside;
        std::unordered_map<std::int32_t, std::uint64_t> keys;
        for (std::uint32_t i = 0; i < ws.carried.size(); ++i) {
            const CarriedStorage& c = ws.carried[i];
            if (c.bytes == 0 || s < c.first || s >= c.last) continue;
            if (std::binary_search(held.begin(), held.end(), i))
                keys.emplace(c.storage.value, std::uint64_t{i} + 1);
            else
                outside.push_back({c.storage, 0, 0, NodeId{}, std::uint64_t{i} + 1});
        }
        const GraphKind kind = file->graph(seg.graph).kind;
        const std::string phase = any_backward && s > last_backward ? "optimizer" : phase_of(kind);
        b.add(step_entry_name(*file, file->step[seg.entry]), phase, seg.graph, file->step[seg.entry].module_prefix,
              t.segments()[s].live(), outside, keys);
    }
}

} // namespace

ExportTimeline export_timeline(std::shared_ptr<const GraphFile> file, const ViewSpec& view,
                               const CancelCheck& cancelled) {
    Builder b(*file);
    switch (view.scope) {
    case ViewScope::WholeStep: step_timeline(file, view, b, cancelled); break;
    case ViewScope::Pair: pair_timeline(file, view, b, cancelled); break;
    case ViewScope::Graph: graph_timeline(file, view, b, cancelled); break;
    }
    ExportTimeline& t = b.out;
    t.peak_index = static_cast<std::size_t>(std::max_element(t.total.begin(), t.total.end()) - t.total.begin());
    t.peak = t.total.empty() ? 0 : t.total[t.peak_index];
    std::stable_sort(t.stays.begin(), t.stays.end(),
                     [](const ExportStay& x, const ExportStay& y) { return x.begin < y.begin; });
    return std::move(b.out);
}

} // namespace fxmem
