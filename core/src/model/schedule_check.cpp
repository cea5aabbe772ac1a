// Schedules: legality (check_schedule) and the original order. Apart from scoring, so that the
// loader (which checks the file's named schedules) needs no estimator code (fuzz/CMakeLists.txt).
#include "fxmem/schedule.h"

#include "fxmem/error.h"
#include "model/quote.h"
#include "model/schedule_check.h"

namespace fxmem {

using detail::quote;

std::vector<NodeId> original_order(const Graph& graph) {
    std::vector<NodeId> order(graph.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = NodeId(static_cast<std::int32_t>(i));
    return order;
}

namespace detail {

std::optional<std::string> schedule_problem(const Graph& graph, std::span<const NodeId> order) {
    const std::size_t n = graph.size();
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::vector<std::size_t> position(n, kNone);
    for (std::size_t p = 0; p < order.size(); ++p) {
        const NodeId id = order[p];
        if (!id.valid() || id.index() >= n)
            return "position " + std::to_string(p) + " names unknown node id " + std::to_string(id.value);
        if (position[id.index()] != kNone)
            return "repeats node " + quote(graph.node(id).name) + " (positions " +
                   std::to_string(position[id.index()]) + " and " + std::to_string(p) + ")";
        position[id.index()] = p;
    }
    for (std::size_t i = 0; i < n; ++i)
        if (position[i] == kNone) return "misses node " + quote(graph.nodes[i].name);
    for (std::size_t p = 0; p < order.size(); ++p)
        for (NodeId in : graph.inputs(order[p]))
            if (position[in.index()] > p)
                return "node " + quote(graph.node(order[p]).name) + " (position " + std::to_string(p) +
                       ") comes before its input " + quote(graph.node(in).name) + " (position " +
                       std::to_string(position[in.index()]) + ")";
    if (n > 0 && graph.nodes.back().op == OpKind::Output && order.back().index() != n - 1)
        return "must end with the output node " + quote(graph.nodes.back().name) + ", not " +
               quote(graph.node(order.back()).name);
    return std::nullopt;
}

} // namespace detail

void check_schedule(const Graph& graph, std::span<const NodeId> order) {
    if (std::optional<std::string> problem = detail::schedule_problem(graph, order))
        throw Error("schedule for graph " + quote(graph.name) + ": " + *problem);
}

} // namespace fxmem
