// write_memory_viz: the export timeline as the snapshot torch.cuda.memory._snapshot() returns,
// pickled for PyTorch's memory_viz (docs/exports.md, "memory_viz").
#include "fxmem/export.h"

#include "export/pickle_writer.h"
#include "fxmem/error.h"
#include "fxmem/io.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <sstream>

namespace fxmem {

namespace {

using detail::PickleWriter;

// Device d's segment starts at (d + 1) << 40: apart, and exact as a JavaScript number.
constexpr std::int64_t kSegmentBase = std::int64_t{1} << 40;

// Best fit as the caching allocator picks a free block: the smallest that fits, the lowest
// address among those; a free block is split, a freed one merged with free neighbours. When none
// fits the segment grows at its end (from a free block that ends there).
class Space {
public:
    std::int64_t alloc(std::int64_t size) {
        const auto it = by_size_.lower_bound({size, std::numeric_limits<std::int64_t>::min()});
        if (it != by_size_.end()) {
            const auto [free_size, at] = *it;
            erase(at, free_size);
            if (free_size > size) insert(at + size, free_size - size);
            return at;
        }
        std::int64_t at = top_;
        if (!by_addr_.empty()) {
            const auto last = std::prev(by_addr_.end());
            if (last->first + last->second == top_) {
                at = last->first;
                erase(last->first, last->second);
            }
        }
        top_ = at + size;
        return at;
    }
    void free(std::int64_t at, std::int64_t size) {
        auto next = by_addr_.lower_bound(at);
        if (next != by_addr_.end() && at + size == next->first) {
            size += next->second;
            erase(next->first, next->second);
        }
        next = by_addr_.lower_bound(at);
        if (next != by_addr_.begin()) {
            const auto prev = std::prev(next);
            if (prev->first + prev->second == at) {
                at = prev->first;
                size += prev->second;
                erase(prev->first, prev->second);
            }
        }
        insert(at, size);
    }
    std::int64_t top() const { return top_; }

private:
    std::set<std::pair<std::int64_t, std::int64_t>> by_size_; // (size, address)
    std::map<std::int64_t, std::int64_t> by_addr_;            // address -> size
    std::int64_t top_ = 0;
    void insert(std::int64_t at, std::int64_t size) {
        by_size_.insert({size, at});
        by_addr_.emplace(at, size);
    }
    void erase(std::int64_t at, std::int64_t size) {
        by_size_.erase({size, at});
        by_addr_.erase(at);
    }
};

// memory_viz's device numbers: "cuda:N" (and "cuda") keep N; every other device of the file (cpu,
// meta, ...), in the file's order, takes the next number after the CUDA ones.
std::vector<std::uint32_t> device_numbers(const GraphFile& file, std::vector<std::string>& names) {
    std::vector<std::uint32_t> number(file.devices.size(), 0);
    std::vector<char> is_cuda(file.devices.size(), 0);
    std::uint32_t next = 0;
    for (std::size_t d = 0; d < file.devices.size(); ++d) {
        const std::string_view name = file.devices[d];
        std::uint32_t n = 0;
        if (name == "cuda") {
            is_cuda[d] = 1;
        } else if (name.starts_with("cuda:")) {
            const char* end = name.data() + name.size();
            const auto r = std::from_chars(name.data() + 5, end, n);
            is_cuda[d] = r.ec == std::errc() && r.ptr == end && n < 4096;
        }
        if (is_cuda[d]) {
            number[d] = n;
            next = std::max(next, n + 1);
        }
    }
    for (std::size_t d = 0; d < file.devices.size(); ++d)
        if (!is_cuda[d]) number[d] = next++;
    names.assign(next, std::string());
    for (std::size_t d = 0; d < file.devices.size(); ++d)
        if (names[number[d]].empty()) names[number[d]] = file.devices[d];
    return number;
}

struct Frame {
    std::string filename;
    std::int64_t line = 0;
    std::string name;
    const Graph* graph = nullptr; // the node frame: FX fields from this node
    NodeId node;
};

// A frame's text, at most kFrameText bytes: frames repeat per allocation, so a hostile 100k-byte
// module prefix would make the snapshot hundreds of MB (allocations x its length). Longer texts
// keep their head and tail around "…", cut on UTF-8 boundaries.
constexpr std::size_t kFrameText = 512, kFrameTrace = 16384;
std::string capped_to(std::string s, std::size_t limit) {
    if (s.size() <= limit) return s;
    const auto continuation = [&](std::size_t i) { return (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; };
    std::size_t head = limit / 2, tail = s.size() - limit / 4;
    while (head > 0 && continuation(head)) --head;
    while (tail < s.size() && continuation(tail)) ++tail;
    return s.substr(0, head) + "\u2026" + s.substr(tail);
}
std::string capped(std::string s) { return capped_to(std::move(s), kFrameText); }

// `  File "x.py", line 81, in forward` lines of a Python stack trace, innermost first.
void trace_frames(std::string_view text, std::vector<Frame>& out) {
    std::vector<Frame> frames;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        const std::size_t start = line.find_first_not_of(' ');
        if (start == std::string_view::npos) continue;
        line = line.substr(start);
        if (!line.starts_with("File \"")) continue;
        const std::size_t q = line.find("\", line ", 6);
        if (q == std::string_view::npos) continue;
        Frame f;
        f.filename = capped(std::string(line.substr(6, q - 6)));
        std::string_view rest = line.substr(q + 8);
        const auto r = std::from_chars(rest.data(), rest.data() + rest.size(), f.line);
        if (r.ec != std::errc()) continue;
        rest = rest.substr(static_cast<std::size_t>(r.ptr - rest.data()));
        if (rest.starts_with(", in ")) f.name = capped(std::string(rest.substr(5)));
        frames.push_back(std::move(f));
    }
    out.insert(out.end(), std::make_move_iterator(frames.rbegin()), std::make_move_iterator(frames.rend()));
}

std::string role_name(std::uint32_t role) {
    const std::string_view r = to_string(static_cast<StorageRole>(role));
    return r.empty() ? "unknown" : std::string(r);
}

// A stay's frames, innermost first: its node (the section's graph name as the file, the node's
// index as the line, "name = target"), the node's module, the node's stack trace; for a storage
// carried from outside, one frame naming it.
std::vector<Frame> stay_frames(const GraphFile& file, const ExportTimeline& t, const ExportStay& s) {
    const ExportSection& sec = t.sections[s.section];
    std::vector<Frame> out;
    if (!s.allocator.valid()) {
        const std::string_view label = file.label(s.storage);
        out.push_back({capped(sec.name), 0,
                       capped("carried " + role_name(t.role_of[s.storage.index()]) + " " +
                              (label.empty() ? "storage " + std::to_string(file.storages[s.storage.index()].file_id)
                                             : std::string(label))),
                       nullptr, NodeId{}});
        return out;
    }
    const Graph& g = file.graph(sec.graph);
    out.push_back({capped(sec.name), s.allocator.value,
                   capped(g.node(s.allocator).name + " = " + std::string(g.target(s.allocator))), &g, s.allocator});
    if (const ModuleInfo* m = g.module(s.allocator)) {
        std::string q = sec.module_prefix;
        if (!m->name.empty()) q += (q.empty() ? "" : ".") + m->name;
        out.push_back(
            {capped("module " + (q.empty() ? std::string("(root)") : q)), 0, capped(m->type), nullptr, NodeId{}});
    }
    trace_frames(g.stack_trace(s.allocator), out);
    return out;
}

void write_frames(PickleWriter& w, const std::vector<Frame>& frames) {
    w.begin_list(frames.size());
    for (const Frame& f : frames) {
        w.begin_dict(f.graph ? 6 : 3);
        w.key("filename");
        w.string(f.filename);
        w.key("line");
        w.integer(f.line);
        w.key("name");
        w.string(f.name);
        if (f.graph) {
            w.key("fx_node_op");
            w.string(to_string(f.graph->node(f.node).op));
            w.key("fx_node_name");
            w.string(capped(f.graph->node(f.node).name));
            w.key("fx_original_trace");
            // A whole trace per allocation: real ones are a few KB; a hostile one is capped too.
            const std::string_view trace = f.graph->stack_trace(f.node);
            w.string(trace.size() <= kFrameTrace ? std::string(trace) : capped_to(std::string(trace), kFrameTrace));
        }
        w.end();
    }
    w.end();
}

struct Event {
    std::size_t time = 0;
    bool alloc = false;
    std::size_t stay = 0;
};

} // namespace

std::int64_t cuda_block_size(std::int64_t nbytes) {
    constexpr std::int64_t kMinBlock = 512; // CUDACachingAllocator's kMinBlockSize
    if (nbytes < kMinBlock) return kMinBlock;
    const std::int64_t whole = nbytes / kMinBlock * kMinBlock;
    if (whole == nbytes) return whole;
    if (whole > std::numeric_limits<std::int64_t>::max() - kMinBlock)
        throw Error(std::to_string(nbytes) + " bytes rounded up to 512-byte blocks pass 2^63-1");
    return whole + kMinBlock;
}

MemoryVizSummary write_memory_viz(std::ostream& out, const GraphFile& file, const ExportTimeline& t,
                                  const MemoryVizOptions& options) {
    MemoryVizSummary summary;
    const std::vector<std::uint32_t> number = device_numbers(file, summary.devices);
    const std::size_t devices = summary.devices.size();
    if (t.total.empty()) throw Error(file.source + ": the timeline is empty");
    const std::size_t last = options.until_peak ? t.peak_index : t.total.size() - 1;

    // Events in time order; at one index the frees before the allocations (as the timeline counts).
    std::vector<Event> events;
    for (std::size_t k = 0; k < t.stays.size(); ++k) {
        const ExportStay& s = t.stays[k];
        if (file.nbytes(s.storage) == 0 || s.begin > last) continue;
        events.push_back({s.begin, true, k});
        if (s.end <= last) events.push_back({s.end, false, k});
        ++summary.stays;
    }
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        return a.time != b.time ? a.time < b.time : a.alloc < b.alloc;
    });

    // Every address is below its device's base plus the sum of its rounded sizes: refused when that
    // passes int64 (the sizes fit, their rounding to blocks may not).
    {
        __extension__ typedef __int128 Wide;
        Wide rounded = static_cast<Wide>(kSegmentBase) * static_cast<Wide>(devices + 1);
        for (const Event& ev : events) {
            if (!ev.alloc) continue;
            const std::int64_t n = file.nbytes(t.stays[ev.stay].storage);
            rounded += n / 512 * 512 + (n % 512 || n == 0 ? 512 : 0);
            if (rounded > std::numeric_limits<std::int64_t>::max())
                throw Error(file.source + ": memory_viz counts each size rounded up to 512-byte blocks, and these "
                                          "sizes rounded pass 2^63-1 bytes; export --perfetto shows them exactly");
        }
    }

    // Addresses, the device of each event and the peak of the rounded sizes.
    std::vector<Space> space(devices);
    std::vector<std::int64_t> address(t.stays.size(), -1);
    std::vector<std::size_t> per_device(devices, 0);
    std::int64_t live = 0;
    for (std::size_t e = 0; e < events.size(); ++e) {
        const Event& ev = events[e];
        const StorageId st = t.stays[ev.stay].storage;
        const std::uint32_t d = number[file.storages[st.index()].device];
        const std::int64_t size = cuda_block_size(file.nbytes(st));
        if (ev.alloc) {
            address[ev.stay] = space[d].alloc(size);
            live += size;
        } else {
            space[d].free(address[ev.stay], size);
            live -= size;
        }
        per_device[d] += ev.alloc ? 1 : 2;
        if ((e + 1 == events.size() || events[e + 1].time != ev.time) && live > summary.peak) {
            summary.peak = live;
            summary.peak_index = ev.time;
        }
    }
    summary.peak_index = summary.peak == 0 ? last : summary.peak_index;

    // The blocks live after the last event, per device by address.
    std::vector<std::vector<std::size_t>> blocks(devices);
    for (const Event& ev : events)
        if (ev.alloc && (t.stays[ev.stay].end > last))
            blocks[number[file.storages[t.stays[ev.stay].storage.index()].device]].push_back(ev.stay);
    for (auto& b : blocks)
        std::sort(b.begin(), b.end(), [&](std::size_t x, std::size_t y) { return address[x] < address[y]; });
    std::size_t segments = 0;
    for (std::size_t d = 0; d < devices; ++d) segments += space[d].top() > 0;

    PickleWriter w(out);
    w.begin_dict(3);
    w.key("segments");
    w.begin_list(segments);
    for (std::size_t d = 0; d < devices; ++d) {
        if (space[d].top() == 0) continue;
        const std::int64_t base = kSegmentBase * static_cast<std::int64_t>(d + 1);
        std::int64_t allocated = 0, requested = 0, at = 0;
        std::size_t pieces = 0;
        for (std::size_t k : blocks[d]) {
            const std::int64_t n = file.nbytes(t.stays[k].storage);
            pieces += (address[k] > at) + 1;
            at = address[k] + cuda_block_size(n);
            allocated += cuda_block_size(n);
            requested += n;
        }
        pieces += at < space[d].top();
        summary.reserved += space[d].top();
        w.begin_dict(12);
        w.key("device");
        w.integer(static_cast<std::int64_t>(d));
        w.key("address");
        w.integer(base);
        w.key("total_size");
        w.integer(space[d].top());
        w.key("allocated_size");
        w.integer(allocated);
        w.key("active_size");
        w.integer(allocated);
        w.key("requested_size");
        w.integer(requested);
        w.key("stream");
        w.integer(0);
        w.key("segment_type");
        w.string("large");
        w.key("segment_pool_id");
        w.begin_tuple(2);
        w.integer(0);
        w.integer(0);
        w.end();
        w.key("is_expandable");
        w.boolean(false);
        w.key("frames");
        w.begin_list(0);
        w.end();
        w.key("blocks");
        w.begin_list(pieces);
        const auto inactive = [&](std::int64_t from, std::int64_t to) {
            w.begin_dict(5);
            w.key("address");
            w.integer(base + from);
            w.key("size");
            w.integer(to - from);
            w.key("requested_size");
            w.integer(0);
            w.key("state");
            w.string("inactive");
            w.key("frames");
            w.begin_list(0);
            w.end();
            w.end();
        };
        at = 0;
        for (std::size_t k : blocks[d]) {
            const ExportStay& s = t.stays[k];
            if (address[k] > at) inactive(at, address[k]);
            const std::int64_t n = file.nbytes(s.storage);
            w.begin_dict(5);
            w.key("address");
            w.integer(base + address[k]);
            w.key("size");
            w.integer(cuda_block_size(n));
            w.key("requested_size");
            w.integer(n);
            w.key("state");
            w.string("active_allocated");
            w.key("frames");
            write_frames(w, stay_frames(file, t, s));
            w.end();
            at = address[k] + cuda_block_size(n);
        }
        if (at < space[d].top()) inactive(at, space[d].top());
        w.end();
        w.end();
    }
    w.end();

    // Per device: alloc, free_requested and free_completed per stay, then a snapshot entry (the
    // allocator records one when a snapshot is taken) whose category "unknown" keeps MemoryViz.js
    // from failing: it adds "unknown" to a list of categories without it through a misspelt field.
    w.key("device_traces");
    w.begin_list(devices);
    for (std::size_t d = 0; d < devices; ++d) {
        const bool any = per_device[d] > 0;
        w.begin_list(per_device[d] + any);
        std::int64_t active = 0;
        for (const Event& ev : events) {
            const ExportStay& s = t.stays[ev.stay];
            if (number[file.storages[s.storage.index()].device] != d) continue;
            const std::int64_t n = file.nbytes(s.storage);
            const std::int64_t size = cuda_block_size(n);
            active += ev.alloc ? size : -size;
            const std::vector<Frame> frames = stay_frames(file, t, s);
            const std::string_view label = file.label(s.storage);
            const std::string metadata = capped("storage " + std::to_string(file.storages[s.storage.index()].file_id) +
                                                (label.empty() ? std::string() : ": " + std::string(label)));
            const std::string context = capped(t.sections[s.section].name);
            static constexpr const char* kAlloc[] = {"alloc"};
            static constexpr const char* kFree[] = {"free_requested", "free_completed"};
            for (const char* action :
                 ev.alloc ? std::span<const char* const>(kAlloc) : std::span<const char* const>(kFree)) {
                w.begin_dict(ev.alloc ? 9 : 8);
                w.key("action");
                w.string(action);
                w.key("addr");
                w.integer(kSegmentBase * static_cast<std::int64_t>(d + 1) + address[ev.stay]);
                w.key("size");
                w.integer(size);
                w.key("stream");
                w.integer(0);
                w.key("time_us");
                w.integer(static_cast<std::int64_t>(ev.time));
                w.key("compile_context");
                w.string(context);
                w.key("user_metadata");
                w.string(metadata);
                if (ev.alloc) {
                    w.key("category");
                    w.string(role_name(t.role_of[s.storage.index()]));
                }
                w.key("frames");
                write_frames(w, frames);
                w.end();
            }
        }
        if (any) {
            w.begin_dict(9);
            w.key("action");
            w.string("snapshot");
            w.key("addr");
            w.integer(0);
            w.key("size");
            w.integer(active);
            w.key("stream");
            w.integer(0);
            w.key("time_us");
            w.integer(static_cast<std::int64_t>(last));
            w.key("compile_context");
            w.string("");
            w.key("user_metadata");
            w.string("");
            w.key("category");
            w.string("unknown");
            w.key("frames");
            w.begin_list(0);
            w.end();
            w.end();
        }
        w.end();
        summary.entries += per_device[d] + any;
    }
    w.end();

    w.key("fxmem");
    w.begin_dict(7);
    w.key("source");
    w.string(file.source);
    w.key("view");
    w.string(to_string(t.scope));
    w.key("steps");
    w.integer(static_cast<std::int64_t>(last + 1));
    w.key("peak");
    w.integer(t.peak);
    w.key("peak_index");
    w.integer(static_cast<std::int64_t>(t.peak_index));
    w.key("block_size");
    w.integer(512);
    w.key("devices");
    w.begin_list(devices);
    for (const std::string& name : summary.devices) w.string(name);
    w.end();
    w.end();
    w.end();
    w.finish();
    return summary;
}

MemoryVizSummary save_memory_viz(const std::string& path, const GraphFile& file, const ExportTimeline& timeline,
                                 const MemoryVizOptions& options) {
    std::ostringstream os;
    const MemoryVizSummary s = write_memory_viz(os, file, timeline, options);
    write_file_atomically(path, os.view());
    return s;
}

} // namespace fxmem
