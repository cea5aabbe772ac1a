// What the reader resolves against the whole file: the named schedules (each checked like a SCHED
// file), the pairs and the step, once every graph is known; and the end of the top-level object,
// where graphs that waited for their storages are built.
#include "fxmem/error.h"
#include "io/reader.h"
#include "model/quote.h"
#include "model/schedule_check.h"

#include <limits>
#include <unordered_map>

namespace fxmem::reader {

using detail::quote;

// One entry of a schedule's "order": checked against the graph at once when it is known (an
// unknown or repeated node ends the read there), else kept as a name.
void Reader::add_schedule_node(std::string_view v) {
    if (!schedule_.resolved) {
        if (schedule_.order_names.size() + v.size() > std::numeric_limits<std::uint32_t>::max())
            fail("the node names of one schedule's order exceed 4 GiB");
        schedule_.order_names.append(v);
        schedule_.order_ends.push_back(static_cast<std::uint32_t>(schedule_.order_names.size()));
        return;
    }
    const fxmem::Graph& graph = *schedule_graph_;
    const std::size_t p = schedule_.order_ids.size();
    const auto where = [&] {
        return "schedules[" + std::to_string(schedule_.index) + "]: schedule " +
               (schedule_.name.empty() ? std::string() : quote(schedule_.name) + " ") + "of graph " + quote(graph.name);
    };
    const NodeId id = graph.find(v);
    if (!id.valid())
        fail_at(cursor_offset(), where(), "order[" + std::to_string(p) + "] names unknown node " + quote(v));
    std::uint32_t& first = schedule_position_[id.index()];
    if (first != kNotScheduled)
        fail_at(cursor_offset(), where(),
                "repeats node " + quote(v) + " (positions " + std::to_string(first) + " and " + std::to_string(p) +
                    ")");
    first = static_cast<std::uint32_t>(p);
    schedule_.order_ids.push_back(id);
}

void Reader::end_schedule() {
    for (Slot k : {Slot::ScheduleName, Slot::ScheduleGraph, Slot::ScheduleOrder})
        if (!(schedule_seen_ & bit(k))) missing(k);
    schedule_.end_offset = cursor_offset();
    schedules_.push_back(std::move(schedule_));
    ++schedule_count_;
}

// Every named schedule is checked like a SCHED file: known graph, known nodes, every node once,
// inputs first, output last; names unique per graph. The place is only located (line:column)
// when an error is formatted: locating every schedule made a file of many schedules quadratic.
void Reader::resolve_schedules() {
    NameIndex by_key; // "<graph index>:<name>" -> index into file_.schedules
    std::vector<std::string> keys;
    for (StagedSchedule& st : schedules_) {
        const std::string at = "schedules[" + std::to_string(st.index) + "]";
        const std::optional<GraphId> g = file_.find_graph(st.graph);
        if (!g) fail_at(st.end_offset, at, "schedule " + quote(st.name) + ": unknown graph " + quote(st.graph));
        const fxmem::Graph& graph = file_.graph(*g);
        const auto where = [&] { return at + ": schedule " + quote(st.name) + " of graph " + quote(graph.name); };
        std::string key = std::to_string(g->value) + ":" + st.name;
        const auto next = static_cast<std::uint32_t>(keys.size());
        const std::uint32_t earlier =
            by_key.insert(key, next, [&](std::uint32_t i) { return std::string_view(keys[i]); });
        if (earlier != NameIndex::npos) // keys are pushed in schedules_ order
            fail_at(st.end_offset, where(),
                    "duplicate schedule name (schedules[" + std::to_string(earlier) + "] has it too)");
        keys.push_back(std::move(key));
        NamedSchedule named; // its name and source are moved in once where() can no longer be needed
        named.graph = *g;
        if (st.resolved) {
            named.order = std::move(st.order_ids);
        } else {
            named.order.reserve(st.order_size());
            for (std::size_t p = 0; p < st.order_size(); ++p) {
                const NodeId id = graph.find(st.order_name(p));
                if (!id.valid())
                    fail_at(st.end_offset, where(),
                            "order[" + std::to_string(p) + "] names unknown node " + quote(st.order_name(p)));
                named.order.push_back(id);
            }
            std::string().swap(st.order_names);
        }
        if (std::optional<std::string> problem = detail::schedule_problem(graph, named.order))
            fail_at(st.end_offset, where(), std::move(*problem));
        named.name = std::move(st.name);
        named.source = std::move(st.source);
        file_.schedules.push_back(std::move(named));
    }
}

// The step's runs, checked against what a training step can do: each (graph, call) runs once, a
// backward after the forward call it differentiates, and a joint graph (a compile-time graph that
// never runs) is no entry. Linear in the entries.
void Reader::check_step() {
    std::vector<std::int32_t> forward_of(file_.graphs.size(), -1); // backward graph -> its forward
    for (const Pair& p : file_.pairs)
        if (forward_of[p.backward.index()] < 0) forward_of[p.backward.index()] = p.forward.value;
    const auto key = [](std::uint32_t graph, std::int64_t call) {
        return (static_cast<std::uint64_t>(graph) << 32) | static_cast<std::uint64_t>(call);
    };
    std::unordered_map<std::uint64_t, std::size_t> ran; // (graph, call) -> its entry
    ran.reserve(steps_.size());
    for (StagedStep& st : steps_) {
        const std::string place = "step[" + std::to_string(st.index) + "]";
        const std::optional<GraphId> g = file_.find_graph(st.graph);
        if (!g) fail_at(st.end_offset, place, "unknown graph " + quote(st.graph));
        const auto gi = static_cast<std::uint32_t>(g->value);
        const GraphKind kind = file_.graphs[gi].kind;
        const std::string run = "graph " + quote(st.graph) + " call " + std::to_string(st.call);
        if (kind == GraphKind::Joint)
            fail_at(st.end_offset, place,
                    "graph " + quote(st.graph) +
                        " is a joint graph, which never runs: a step lists forward, backward and inference graphs");
        if (const auto [at, fresh] = ran.emplace(key(gi, st.call), st.index); !fresh)
            fail_at(st.end_offset, place, run + " is listed twice (also step[" + std::to_string(at->second) + "])");
        if (kind == GraphKind::Backward && forward_of[gi] >= 0) {
            const auto fwd = static_cast<std::uint32_t>(forward_of[gi]);
            if (!ran.contains(key(fwd, st.call)))
                fail_at(st.end_offset, place,
                        "backward " + run + " has no run of its forward " + quote(file_.graphs[fwd].name) + " call " +
                            std::to_string(st.call) +
                            " before it (a backward entry has the call of the forward it differentiates)");
        }
        file_.step.push_back({*g, static_cast<std::uint32_t>(st.call), std::move(st.module_prefix)});
    }
}

void Reader::end_top() {
    for (Slot k : {Slot::TopFormat, Slot::TopVersion, Slot::TopStorages, Slot::TopGraphs})
        if (!(top_seen_ & bit(k)))
            fail_at(ReadError::kNoOffset, {},
                    "missing " + field_name(k) +
                        (k == Slot::TopFormat ? " (not an fxmem graph file?)" : " in the top-level object"));
    for (PendingGraph& g : deferred_) replay(g);
    deferred_.clear();
    resolve_programs(); // before the expressions: a buffer's nbytes_expr is checked against its nbytes
    resolve_symbolic();
    for (const StagedPair& p : pairs_) {
        const std::string place = "pairs[" + std::to_string(p.index) + "]";
        if (!file_.find_graph(p.forward)) fail_at(p.end_offset, place, "unknown forward graph " + quote(p.forward));
        if (!file_.find_graph(p.backward)) fail_at(p.end_offset, place, "unknown backward graph " + quote(p.backward));
        if (p.forward == p.backward)
            fail_at(p.end_offset, place, "graph " + quote(p.forward) + " cannot be its own backward");
        // A pair written the wrong way round (or naming a joint graph) was scored as given: the
        // backward's peak as the forward's, its activations held for a backward that never runs.
        const auto kind_of = [&](const std::string& name) { return file_.graph(*file_.find_graph(name)).kind; };
        for (const bool fwd : {true, false}) {
            const GraphKind k = kind_of(fwd ? p.forward : p.backward);
            const GraphKind wrong = fwd ? GraphKind::Backward : GraphKind::Forward;
            if (k == wrong || k == GraphKind::Joint)
                fail_at(p.end_offset, place,
                        std::string(fwd ? "forward" : "backward") + " graph " + quote(fwd ? p.forward : p.backward) +
                            " is of kind '" + std::string(to_string(k)) +
                            "': a pair is a forward graph, then its backward");
        }
        file_.add_pair(p.forward, p.backward);
        Pair& added = file_.pairs.back();
        added.budget = p.budget;
        if (p.joint_given) {
            const std::optional<GraphId> j = file_.find_graph(p.joint);
            if (!j) fail_at(p.end_offset, place, "unknown joint graph " + quote(p.joint));
            const GraphKind kind = file_.graph(*j).kind;
            if (kind != GraphKind::Joint)
                fail_at(p.end_offset, place,
                        "graph " + quote(p.joint) + " is not a joint graph (kind '" + std::string(to_string(kind)) +
                            "')");
            added.joint = j;
        }
    }
    check_step();
    resolve_schedules();
    resolve_distributed();
}

} // namespace fxmem::reader
