// write_perfetto: the export timeline as Chrome-trace JSON (docs/exports.md, "Perfetto").
#include "fxmem/export.h"

#include "fxmem/display_text.h"
#include "fxmem/error.h"
#include "fxmem/io.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <sstream>

namespace fxmem {

namespace {

// One event per line, so a large trace is written without holding it as one JSON value.
class TraceWriter {
public:
    explicit TraceWriter(std::ostream& out) : out_(out) {
        out_ << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
    }
    void event(const nlohmann::ordered_json& e) { out_ << (count_++ ? ",\n" : "") << e.dump(); }
    std::size_t finish() {
        out_ << "\n]}\n";
        return count_;
    }

private:
    std::ostream& out_;
    std::size_t count_ = 0;
};

constexpr int kPid = 1, kNodesTid = 1;

nlohmann::ordered_json slice(const std::string& name, const char* cat, std::size_t ts, std::size_t dur) {
    return {{"ph", "X"}, {"pid", kPid}, {"tid", kNodesTid}, {"name", name}, {"cat", cat}, {"ts", ts}, {"dur", dur}};
}

nlohmann::ordered_json counter(const std::string& name, std::size_t ts, std::int64_t bytes) {
    return {{"ph", "C"}, {"pid", kPid}, {"name", name}, {"ts", ts}, {"args", {{"bytes", bytes}}}};
}

// A counter's values, written where they change (and at the first and last index).
void write_counter(TraceWriter& w, const std::string& name, std::size_t n, const auto& value) {
    for (std::size_t i = 0; i < n; ++i)
        if (i == 0 || i + 1 == n || value(i) != value(i - 1)) w.event(counter(name, i, value(i)));
}

} // namespace

std::size_t write_perfetto(std::ostream& out, const GraphFile& file, const ExportTimeline& t) {
    TraceWriter w(out);
    w.event({{"ph", "M"},
             {"pid", kPid},
             {"name", "process_name"},
             {"args", {{"name", "fxmem: " + utf8_or_escaped(file.source)}}}});
    w.event({{"ph", "M"}, {"pid", kPid}, {"tid", kNodesTid}, {"name", "thread_name"}, {"args", {{"name", "nodes"}}}});
    // Phases (consecutive sections of one phase), then each section, then its nodes: nested slices.
    for (std::size_t s = 0; s < t.sections.size();) {
        std::size_t e = s;
        while (e + 1 < t.sections.size() && t.sections[e + 1].phase == t.sections[s].phase) ++e;
        const std::size_t end = t.sections[e].begin + t.sections[e].length;
        w.event(slice(t.sections[s].phase, "phase", t.sections[s].begin, end - t.sections[s].begin));
        s = e + 1;
    }
    for (const ExportSection& sec : t.sections) {
        const Graph& g = file.graph(sec.graph);
        std::size_t peak_at = sec.begin;
        for (std::size_t i = sec.begin; i < sec.begin + sec.length; ++i)
            if (t.total[i] > t.total[peak_at]) peak_at = i;
        nlohmann::ordered_json gs = slice(sec.name, "graph", sec.begin, sec.length);
        gs["args"] = {{"graph", g.name}, {"kind", std::string(to_string(g.kind))}, {"peak", t.total[peak_at]}};
        w.event(gs);
        for (std::size_t i = 1; i + 1 < sec.length; i += 2) {
            const NodeId n = sec.step_node[i];
            nlohmann::ordered_json ns = slice(g.node(n).name, "node", sec.begin + i, 2);
            ns["args"] = {{"target", std::string(g.target(n))},
                          {"module", g.module(n) ? g.module(n)->name : std::string()},
                          {"after_alloc", t.total[sec.begin + i]},
                          {"after_free", t.total[sec.begin + i + 1]}};
            w.event(ns);
        }
        nlohmann::ordered_json peak = {{"ph", "i"},
                                       {"pid", kPid},
                                       {"tid", kNodesTid},
                                       {"s", "t"},
                                       {"name", "peak of " + sec.name},
                                       {"ts", peak_at},
                                       {"args", {{"bytes", t.total[peak_at]}}}};
        w.event(peak);
    }
    const std::size_t n = t.total.size();
    write_counter(w, "total", n, [&](std::size_t i) { return t.total[i]; });
    for (std::size_t r = 0; r < kStorageRoleCount; ++r) {
        bool any = false;
        for (std::size_t i = 0; i < n && !any; ++i) any = t.role_at(i, r) != 0;
        if (!any) continue;
        const std::string_view role = to_string(static_cast<StorageRole>(r));
        write_counter(w, "role: " + std::string(role.empty() ? "unknown" : role), n,
                      [&](std::size_t i) { return t.role_at(i, r); });
    }
    w.event({{"ph", "i"},
             {"pid", kPid},
             {"s", "p"},
             {"name", "peak"},
             {"ts", t.peak_index},
             {"args", {{"bytes", t.peak}}}});
    return w.finish();
}

std::size_t save_perfetto(const std::string& path, const GraphFile& file, const ExportTimeline& timeline) {
    std::ostringstream os;
    const std::size_t events = write_perfetto(os, file, timeline);
    write_file_atomically(path, os.view());
    return events;
}

} // namespace fxmem
