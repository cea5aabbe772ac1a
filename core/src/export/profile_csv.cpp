// write_profile_csv: a view's profile as CSV, the same columns from the CLI and the app.
#include "fxmem/profile_csv.h"

#include "fxmem/whole_step.h"

#include <ostream>
#include <string>
#include <vector>

namespace fxmem {

std::string_view to_string(StepPhase phase) {
    switch (phase) {
    case StepPhase::Start: return "start";
    case StepPhase::AfterAlloc: return "after_alloc";
    case StepPhase::AfterFree: return "after_free";
    }
    return "start";
}

namespace {

void put_field(std::ostream& out, std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        out << s;
        return;
    }
    out << '"';
    for (char c : s) {
        if (c == '"') out << '"';
        out << c;
    }
    out << '"';
}

} // namespace

void write_profile_csv(std::ostream& out, const Timeline& timeline, const ProfileEdit* edit) {
    const GraphFile& file = timeline.file();
    const bool edited = edit != nullptr && timeline.segments().size() == 1;
    out << "step,run,graph,graph_step,node,phase,bytes" << (edited ? ",edited_bytes,edited_node\n" : "\n");
    // The running nodes of the edited order by position: step 1 + 2k and 2 + 2k are the k-th's.
    std::vector<NodeId> running;
    if (edited) {
        const Graph& g = file.graph(timeline.segments().front().graph);
        for (NodeId n : edit->order)
            if (has_profile_points(g.node(n).op)) running.push_back(n);
    }
    for (const TimelineSegment& seg : timeline.segments()) {
        const Graph& g = file.graph(seg.graph);
        const std::string run = seg.entry ? step_entry_name(file, file.step[*seg.entry]) : g.name;
        for (std::size_t i = 0; i < seg.length; ++i) {
            const std::size_t step = static_cast<std::size_t>(seg.offset) + i;
            out << step << ',';
            put_field(out, run);
            out << ',';
            put_field(out, g.name);
            out << ',' << i << ',';
            if (i > 0) put_field(out, g.node(seg.live().node_at(i)).name);
            out << ',' << to_string(phase_of(static_cast<std::int64_t>(i))) << ',' << timeline.profile()[step];
            if (edited) {
                out << ',';
                if (step < edit->bytes.size()) out << edit->bytes[step];
                out << ',';
                if (i > 0) {
                    const std::size_t k = running_position(static_cast<std::int64_t>(i));
                    if (k < running.size()) put_field(out, g.node(running[k]).name);
                }
            }
            out << '\n';
        }
    }
}

} // namespace fxmem
