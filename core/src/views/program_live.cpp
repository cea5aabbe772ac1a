// ProgramLiveIndex: one walk over the kernels gives each counted buffer its interval and each
// allocation its block; the profile is their difference array summed. Live-set queries use the
// centred interval tree LiveSetIndex uses (estimator/centred_intervals.h): O(log K + live).
#include "fxmem/program_profile.h"

#include "estimator/centred_intervals.h"
#include "fxmem/error.h"
#include "model/quote.h"

#include <algorithm>
#include <bit>

namespace fxmem {

namespace {

constexpr std::uint32_t kNeverPlusOne = 0;

} // namespace

ProgramLiveIndex::ProgramLiveIndex(const GraphFile& file, GraphId graph, DeviceFilter devices) : graph_(graph) {
    if (!graph.valid() || graph.index() >= file.graphs.size())
        throw Error(file.source + ": no graph " + std::to_string(graph.value) + " (the file has " +
                    std::to_string(file.graphs.size()) + ")");
    const Graph& g = file.graph(graph);
    if (!g.program)
        throw Error(file.source + ": graph " + detail::quote(g.name) +
                    " has no program level (the file records no compiled program for it: re-capture it with an "
                    "exporter that records the program)");
    if (const std::optional<ProgramFault> fault = check_program(file, graph, *g.program))
        throw Error(file.source + ": graph " + detail::quote(g.name) + ", " + fault->place() + ": " + fault->what);
    program_ = g.program;
    const Program& p = *program_;
    const auto n = static_cast<std::uint32_t>(p.buffers.size());
    size_ = 1 + 2 * p.kernels.size();
    const auto end_of_program = static_cast<std::int64_t>(size_);

    nbytes_.assign(n, 0);
    std::vector<std::uint8_t> counted(n, 0);
    for (std::uint32_t b = 0; b < n; ++b) {
        const ProgramBuffer& buf = p.buffers[b];
        counted[b] = devices == DeviceFilter::All || !file.device_is_cpu[buf.device];
        nbytes_[b] = counted[b] ? buf.nbytes : 0;
    }
    // Each buffer's [begin, end) and the block it belongs to (a reuse continues its buffer's).
    std::vector<std::int64_t> begin(n, -1), end(n, end_of_program);
    std::vector<std::uint32_t> block_of(n, 0);
    alloc_at_.assign(n, kNeverPlusOne);
    free_at_.assign(n, kNeverPlusOne);
    taken_by_.assign(n, kNeverPlusOne);
    const auto open_block = [&](std::uint32_t b, std::int64_t at) {
        block_of[b] = static_cast<std::uint32_t>(blocks_.size());
        blocks_.push_back({b, p.buffers[b].nbytes, p.buffers[b].stream, at, end_of_program});
    };
    for (std::uint32_t b = 0; b < n; ++b)
        if (p.buffers[b].input) {
            begin[b] = 0;
            open_block(b, 0);
        }
    for (std::uint32_t k = 0; k < p.kernels.size(); ++k) {
        const ProgramKernel& kernel = p.kernels[k];
        const auto before = static_cast<std::int64_t>(1 + 2 * k);
        for (std::uint32_t b : p.allocs(kernel)) {
            begin[b] = before;
            alloc_at_[b] = k + 1;
            if (const std::optional<std::uint32_t> r = p.buffers[b].reuses) {
                end[*r] = before;
                taken_by_[*r] = b + 1;
                block_of[b] = block_of[*r];
            } else {
                open_block(b, before);
            }
        }
        for (std::uint32_t b : p.frees(kernel)) {
            end[b] = before + 1;
            free_at_[b] = k + 1;
            blocks_[block_of[b]].end = before + 1;
        }
    }
    // Input buffers that hold one storage (views of one tensor: q, k and v of one projection) are
    // one allocation, held until the last of them goes: the first holds the bytes.
    std::vector<std::uint32_t> holder(file.storages.size(), n);
    for (std::uint32_t b = 0; b < n; ++b) {
        if (!p.buffers[b].input) continue;
        const std::span<const NodeId> nodes = p.nodes(p.buffers[b]);
        if (nodes.empty() || g.outputs(nodes.front()).empty()) continue;
        std::uint32_t& first = holder[g.outputs(nodes.front()).front().index()];
        if (first == n) {
            first = b;
            continue;
        }
        end[first] = std::max(end[first], end[b]);
        blocks_[block_of[first]].end = std::max(blocks_[block_of[first]].end, end[b]);
        blocks_[block_of[b]].end = blocks_[block_of[b]].begin;
        nbytes_[b] = 0;
    }
    // The autograd engine's gradients of the outputs: alive until the backward has returned. A
    // tangent is the storage role the exporter writes; a file without roles falls back on
    // PyTorch's own rule, as remat's joint analysis applies it (_aot_autograd/utils.py _is_tangent:
    // a placeholder whose target contains "tangents").
    for (std::uint32_t b = 0; b < n; ++b) {
        if (!p.buffers[b].input || !counted[b]) continue;
        const std::span<const NodeId> nodes = p.nodes(p.buffers[b]);
        if (nodes.empty() || g.outputs(nodes.front()).empty()) continue;
        const StorageRole role = file.role(g.outputs(nodes.front()).front());
        if (role == StorageRole::Tangent ||
            (role == StorageRole::Unknown && g.node(nodes.front()).op == OpKind::Placeholder &&
             g.target(nodes.front()).find("tangents") != std::string_view::npos))
            tangent_bytes_ += nbytes_[b];
    }
    std::erase_if(blocks_, [&](const ProgramBlock& blk) { return !counted[blk.buffer] || blk.begin == blk.end; });

    profile_.assign(size_ + 1, 0);
    for (std::uint32_t b = 0; b < n; ++b) {
        // Never live, not counted, or taken over by a reuse in the kernel that allocated it.
        if (begin[b] < 0 || !counted[b] || begin[b] == end[b]) continue;
        intervals_.push_back({begin[b], end[b], b});
        profile_[static_cast<std::size_t>(begin[b])] += nbytes_[b];
        profile_[static_cast<std::size_t>(end[b])] -= nbytes_[b];
    }
    profile_.pop_back();
    for (std::size_t i = 1; i < profile_.size(); ++i) profile_[i] += profile_[i - 1];

    detail::build_centred(
        {levels_, bucket_, by_begin_, by_end_}, size_, static_cast<std::uint32_t>(intervals_.size()),
        [&](std::uint32_t k) { return intervals_[k].begin; }, [&](std::uint32_t k) { return intervals_[k].end; });

    std::vector<std::uint32_t> order(intervals_.size());
    for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        return nbytes_[intervals_[a].buffer] > nbytes_[intervals_[b].buffer];
    });
    rank_.resize(order.size());
    for (std::uint32_t r = 0; r < order.size(); ++r) rank_[order[r]] = r;
}

std::optional<std::uint32_t> ProgramLiveIndex::kernel_at(std::size_t profile_index) const {
    if (profile_index == 0 || profile_index >= size_) return std::nullopt;
    return static_cast<std::uint32_t>((profile_index - 1) / 2);
}

LiveBuffer ProgramLiveIndex::describe(const Interval& iv) const {
    LiveBuffer out;
    out.buffer = iv.buffer;
    out.nbytes = nbytes_[iv.buffer];
    const auto opt = [](std::uint32_t plus_one) {
        return plus_one == kNeverPlusOne ? std::nullopt : std::optional<std::uint32_t>(plus_one - 1);
    };
    out.alloc_kernel = opt(alloc_at_[iv.buffer]);
    out.free_kernel = opt(free_at_[iv.buffer]);
    out.taken_over_by = opt(taken_by_[iv.buffer]);
    out.alloc_step = iv.begin;
    if (iv.end < static_cast<std::int64_t>(size_)) out.free_step = iv.end;
    return out;
}

std::vector<LiveBuffer> ProgramLiveIndex::live_at(std::size_t profile_index) const {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> found; // (size rank, interval)
    if (profile_index >= size_) return {};
    detail::stab_centred(
        {levels_, bucket_, by_begin_, by_end_}, profile_index, [&](std::uint32_t k) { return intervals_[k].begin; },
        [&](std::uint32_t k) { return intervals_[k].end; }, [&](std::uint32_t k) { found.emplace_back(rank_[k], k); });
    std::sort(found.begin(), found.end());
    std::vector<LiveBuffer> out;
    out.reserve(found.size());
    for (const auto& f : found) out.push_back(describe(intervals_[f.second]));
    return out;
}

std::vector<std::int64_t> build_program_profile(const GraphFile& file, GraphId graph, DeviceFilter devices) {
    return ProgramLiveIndex(file, graph, devices).profile();
}

} // namespace fxmem
