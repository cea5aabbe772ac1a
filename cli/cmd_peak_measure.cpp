// peak FILE --measure allocated|reserved [--pair P | --whole-step | --graph G] [--alloc-conf C]
// [--memory M] [--json]: the view's peak under the compiled program's allocations, or under the
// caching allocator replaying them (core's Timeline and reserved_view; docs/estimator.md).
#include "commands.h"
#include "table.h"
#include "text.h"
#include "view_arg.h"

#include "fxmem/caching_allocator.h"
#include "fxmem/error.h"
#include "fxmem/reserved_view.h"
#include "fxmem/timeline.h"
#include "fxmem/units.h"
#include "fxmem/whole_step.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <ostream>

namespace fxmem::cli {

namespace {

std::string segment_name(const GraphFile& file, const TimelineSegment& s) {
    return s.entry ? step_entry_name(file, file.step[*s.entry]) : file.graph(s.graph).name;
}

std::int64_t segment_peak(const Timeline& t, const TimelineSegment& s) {
    const auto begin = t.profile().begin() + s.offset;
    return *std::max_element(begin, begin + static_cast<std::ptrdiff_t>(s.length));
}

} // namespace

int run_measured_peak(const Args& args, std::ostream& out) {
    const auto file = std::make_shared<const GraphFile>(load_bound(args));
    const ViewSpec spec = view_option(*file, args, ViewFallback::Pair);
    const std::optional<std::int64_t> memory = memory_option(args);
    if (spec.measure == Measure::Allocated && args.has("--alloc-conf"))
        throw UsageError("peak: --alloc-conf configures the caching allocator, which --measure reserved simulates");
    const AllocatorConfig config = parse_alloc_conf(args.value("--alloc-conf").value_or(""));
    ViewSpec allocated_spec = spec;
    allocated_spec.measure = Measure::Allocated;
    const Timeline t = open_view(file, allocated_spec);
    std::optional<ReservedView> reserved;
    if (spec.measure == Measure::Reserved) reserved = reserved_view(t, config, memory);
    const std::int64_t peak = reserved ? reserved->peak_reserved : t.peak();
    const std::size_t peak_step = reserved ? reserved->peak_step : t.peak_step();

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["measure"] = to_string(spec.measure);
        j["view"] = to_string(spec.scope);
        j["peak"] = peak;
        j["peak_step"] = peak_step;
        nlohmann::ordered_json segs = nlohmann::ordered_json::array();
        for (const TimelineSegment& s : t.segments())
            segs.push_back({{"name", segment_name(*file, s)},
                            {"graph", file->graph(s.graph).name},
                            {"begin", s.offset},
                            {"length", s.length},
                            {"baseline", s.baseline},
                            {"allocated_peak", segment_peak(t, s)}});
        j["segments"] = std::move(segs);
        j["allocated_peak"] = t.peak();
        if (reserved) {
            j["allocated_blocks_peak"] = reserved->peak_allocated;
            j["reserved_peak"] = reserved->peak_reserved;
            j["fragmentation"] = reserved->fragmentation();
            j["segments_at_peak"] = reserved->segments_at_peak.size();
        }
        if (memory) {
            j["memory"] = *memory;
            j["fits"] = reserved ? !reserved->oom.has_value() : peak <= *memory;
            if (reserved && reserved->oom) {
                j["oom_step"] = *reserved->oom_step;
                j["oom_allocated_would_fit"] = reserved->oom->allocated_would_fit;
            }
        }
        out << j.dump() << '\n';
        return 0;
    }
    if (const std::string note = cpu_only_note(*file, counted_for(*file, spec.devices)); !note.empty())
        out << note << '\n';
    out << "measure: " << to_string(spec.measure)
        << (spec.measure == Measure::Allocated
                ? " (the buffers of the program Inductor generates from each graph)"
                : " (the program's allocations replayed through PyTorch's CUDA caching allocator)")
        << '\n';
    out << escape_control(describe_view(*file, spec)) << '\n';
    for (const TimelineSegment& s : t.segments())
        out << "  " << elide(segment_name(*file, s)) << ": allocated peak " << bytes_text(segment_peak(t, s))
            << (s.baseline ? ", with " + format_bytes(s.baseline) + " carried in" : std::string()) << '\n';
    out << "allocated peak:     " << bytes_text(t.peak()) << " at step " << t.peak_step() << '\n';
    if (reserved) {
        out << "allocated blocks:   " << bytes_text(reserved->peak_allocated)
            << " (sizes rounded as the caching allocator rounds them)\n";
        out << "reserved peak:      " << bytes_text(reserved->peak_reserved) << " at step " << reserved->peak_step
            << ", " << reserved->segments_at_peak.size() << " segments\n";
        out << "fragmentation:      " << bytes_text(reserved->fragmentation()) << " (reserved - allocated blocks)\n";
    }
    if (memory) {
        if (reserved && reserved->oom) {
            const OutOfMemory& o = *reserved->oom;
            out << "out of memory in " << format_bytes(*memory) << " at step " << *reserved->oom_step << ": "
                << format_bytes(o.requested) << " asked with " << format_bytes(o.allocated) << " allocated and "
                << format_bytes(o.reserved) << " reserved"
                << (o.allocated_would_fit
                        ? " (the allocated bytes fit; what the allocator reserves around them does not)"
                        : "")
                << '\n';
        } else {
            out << memory_verdict(peak, *memory) << '\n';
        }
    }
    return 0;
}

} // namespace fxmem::cli
