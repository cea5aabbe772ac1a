// export_timeline: one graph, a joined pair or the whole step as one timeline with bytes by role
// and each storage's stay on it.
#include "fxmem/export.h"

#include "export/export_work.h"
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
    // Stays that reach the end of the last section added, as its pieces came (outside items with
    // key 0 first, then the graph's ranges); the parked ones are apart.
    std::vector<std::size_t> open;
    // Outside items with a key that are still outside (key -> stay): nothing is done for them
    // section by section, so a step of n calls holding O(n) such items costs O(n), not O(n^2).
    // Their stay's end is set when they leave (or at the end).
    std::unordered_map<std::uint64_t, std::size_t> parked;
    RoleBytes parked_bytes{};            // by role, the parked items' bytes: what every section adds
    std::vector<std::uint32_t> taken_in; // per stay: 1 + the section whose piece continued it
    std::uint64_t work = 0;              // items visited (detail::WorkCounters::export_stay_work)

    explicit Builder(const GraphFile& f) : file(f) {
        const RoleAssignment roles = resolve_roles(file);
        out.role_of.assign(roles.role.size(), 0);
        for (std::size_t s = 0; s < roles.role.size(); ++s) out.role_of[s] = static_cast<std::uint32_t>(roles.role[s]);
    }

    // Appends a graph's profile (by role, plus what lives outside it) as a section. Outside: the
    // items that stay outside from the last section, less `leave` (their keys, ascending), plus
    // `enter` (pieces with the key they keep; ascending keys, those of key 0 first, which live
    // for this section only). `keys` gives the key of a storage the graph holds from the start
    // (begin 0). O(this section's graph + enter + leave + the last section's open stays).
    void add(std::string name, std::string phase, GraphId graph, std::string module_prefix, const LiveSetIndex& index,
             std::span<const Piece> enter, std::span<const std::uint64_t> leave = {},
             const std::unordered_map<std::int32_t, std::uint64_t>& keys = {}) {
        ExportSection s;
        s.name = std::move(name);
        s.phase = std::move(phase);
        s.graph = graph;
        s.module_prefix = std::move(module_prefix);
        s.begin = out.total.size();
        s.length = index.profile_size();
        // The items leaving, found by key, their stays ended where this section begins.
        std::vector<std::pair<std::uint64_t, std::size_t>> left;
        for (const std::uint64_t key : leave) {
            const auto it = parked.find(key);
            if (it == parked.end()) continue;
            const ExportStay& st = out.stays[it->second];
            parked_bytes[out.role_of[st.storage.index()]] -= file.nbytes(st.storage);
            out.stays[it->second].end = s.begin;
            left.emplace_back(key, it->second);
            parked.erase(it);
        }
        RoleBytes outside_bytes = parked_bytes; // the parked ones and those entering
        for (const Piece& p : enter) outside_bytes[out.role_of[p.storage.index()]] += file.nbytes(p.storage);
        work += leave.size() + enter.size();
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
        for (const Piece& p : enter) pieces.push_back({p.storage, s.begin, s.begin + s.length, p.allocator, p.key});
        for (const LiveSetIndex::Range& r : index.ranges()) {
            Piece p{r.storage, s.begin + static_cast<std::size_t>(r.begin), s.begin + static_cast<std::size_t>(r.end),
                    r.allocator, 0};
            if (r.begin == 0)
                if (const auto it = keys.find(r.storage.value); it != keys.end()) p.key = it->second;
            pieces.push_back(p);
        }
        stays(pieces, enter.size(), left, static_cast<std::uint32_t>(out.sections.size()), s.begin, s.begin + s.length);
        out.sections.push_back(std::move(s));
    }

    // Continues the stays open at the section's start (the last section's open ones and the items
    // that left the outside now) with its pieces that start there: the same key first, then the
    // same storage (first opened, first taken: the left items, ascending keys, then the open ones
    // in order); the rest begin new stays. A keyed entering piece is parked.
    void stays(const std::vector<Piece>& pieces, std::size_t entering,
               const std::vector<std::pair<std::uint64_t, std::size_t>>& left, std::uint32_t section, std::size_t begin,
               std::size_t end) {
        std::unordered_map<std::uint64_t, std::size_t> by_key;
        std::unordered_map<std::int32_t, std::deque<std::size_t>> by_storage;
        taken_in.resize(out.stays.size(), 0);
        const auto taken = [&](std::size_t k) { return taken_in[k] == section + 1; };
        for (const auto& [key, k] : left) by_key.emplace(key, k);
        for (std::size_t k : open)
            if (keys_[k]) by_key.emplace(keys_[k], k);
        work += pieces.size() + left.size() + open.size();
        std::vector<std::size_t> continued(pieces.size(), SIZE_MAX);
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            if (pieces[i].begin != begin || !pieces[i].key) continue;
            if (const auto it = by_key.find(pieces[i].key); it != by_key.end() && !taken(it->second)) {
                continued[i] = it->second;
                taken_in[it->second] = section + 1;
            }
        }
        for (const auto& [key, k] : left)
            if (!taken(k)) by_storage[out.stays[k].storage.value].push_back(k);
        for (std::size_t k : open)
            if (!taken(k)) by_storage[out.stays[k].storage.value].push_back(k);
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
            // An entering item with a key stays outside until it leaves: parked, not open.
            if (i < entering && p.key) {
                parked.emplace(p.key, k);
                parked_bytes[out.role_of[p.storage.index()]] += file.nbytes(p.storage);
            } else if (p.end == end) {
                next.push_back(k);
            }
        }
        open = std::move(next);
    }

    // The parked items live to the end of the timeline.
    void finish() {
        for (const auto& [key, k] : parked) out.stays[k].end = out.total.size();
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
    b.add(file->graph(bwd.graph).name, "backward", bwd.graph, "", bwd.live(), baseline); // key 0: this section only
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
    // What each segment carries outside its graph changes only where an item starts, ends, or is
    // held by a graph (WholeStep::held): the sections pass those changes on (enter, leave), so the
    // work is linear in the items and the held lists, not segments x carried items.
    const std::size_t n = ws.segments.size();
    std::vector<std::vector<std::uint32_t>> starting(n), ending(n + 1);
    for (std::uint32_t i = 0; i < ws.carried.size(); ++i) {
        const CarriedStorage& c = ws.carried[i];
        if (c.bytes == 0 || c.first >= c.last || c.first >= n) continue;
        starting[c.first].push_back(i);
        ending[std::min<std::size_t>(c.last, n)].push_back(i);
    }
    std::vector<std::uint8_t> outside_now(ws.carried.size(), 0);
    const auto held_in = [&](std::uint32_t s) {
        return std::span(ws.held).subspan(ws.held_begin[s], ws.held_begin[s + 1] - ws.held_begin[s]);
    };
    for (std::uint32_t s = 0; s < n; ++s) {
        throw_if_cancelled(cancelled);
        const StepSegment& seg = ws.segments[s];
        const auto held = held_in(s);
        const auto active = [&](std::uint32_t i) {
            const CarriedStorage& c = ws.carried[i];
            return c.bytes != 0 && s >= c.first && s < c.last;
        };
        const auto outside = [&](std::uint32_t i) {
            return active(i) && !std::binary_search(held.begin(), held.end(), i);
        };
        std::vector<std::uint32_t> entering, leaving;
        const auto consider = [&](std::uint32_t i) {
            const bool now = outside(i);
            if (now == static_cast<bool>(outside_now[i])) return;
            outside_now[i] = now;
            (now ? entering : leaving).push_back(i);
        };
        for (const std::uint32_t i : starting[s]) consider(i);
        for (const std::uint32_t i : ending[s]) consider(i);
        for (const std::uint32_t i : held) consider(i);
        if (s > 0)
            for (const std::uint32_t i : held_in(s - 1)) consider(i);
        b.work += starting[s].size() + ending[s].size() + held.size() + (s > 0 ? held_in(s - 1).size() : 0);
        std::sort(entering.begin(), entering.end());
        std::sort(leaving.begin(), leaving.end());
        std::vector<Piece> enter;
        for (const std::uint32_t i : entering)
            enter.push_back({ws.carried[i].storage, 0, 0, NodeId{}, std::uint64_t{i} + 1});
        std::vector<std::uint64_t> leave;
        for (const std::uint32_t i : leaving) leave.push_back(std::uint64_t{i} + 1);
        // The items its graph holds as inputs: their pieces continue the item's stay.
        std::unordered_map<std::int32_t, std::uint64_t> keys;
        for (const std::uint32_t i : held)
            if (active(i)) keys.emplace(ws.carried[i].storage.value, std::uint64_t{i} + 1);
        const GraphKind kind = file->graph(seg.graph).kind;
        const std::string phase = any_backward && s > last_backward ? "optimizer" : phase_of(kind);
        b.add(step_entry_name(*file, file->step[seg.entry]), phase, seg.graph, file->step[seg.entry].module_prefix,
              t.segments()[s].live(), enter, leave, keys);
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
    b.finish();
    detail::export_stay_work.fetch_add(b.work, std::memory_order_relaxed);
    ExportTimeline& t = b.out;
    t.peak_index = static_cast<std::size_t>(std::max_element(t.total.begin(), t.total.end()) - t.total.begin());
    t.peak = t.total.empty() ? 0 : t.total[t.peak_index];
    std::stable_sort(t.stays.begin(), t.stays.end(),
                     [](const ExportStay& x, const ExportStay& y) { return x.begin < y.begin; });
    return std::move(b.out);
}

} // namespace fxmem
