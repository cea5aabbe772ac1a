// --schedule X: a SCHED file, or the name of a schedule stored in the graph file. A path that
// exists is always read as a file (so a file named like a stored schedule still wins); otherwise
// X must name a stored schedule, of the --graph when one is given.
#include "commands.h"

#include "fxmem/error.h"
#include "fxmem/schedule.h"

#include <sys/stat.h>

namespace fxmem::cli {

Schedule resolve_schedule(const GraphFile& file, const std::string& x, const Args& args) {
    const std::string graph_name = args.value("--graph").value_or("");
    struct stat st {};
    if (::stat(x.c_str(), &st) == 0) return load_schedule(file, x, graph_name);
    const NamedSchedule* found = nullptr;
    std::string graphs_with_it, known;
    std::size_t matches = 0;
    for (const NamedSchedule& s : file.schedules) {
        const std::string& g = file.graphs[s.graph].name;
        known += (known.empty() ? "'" : ", '") + s.name + "' (graph '" + g + "')";
        if (s.name != x || (!graph_name.empty() && g != graph_name)) continue;
        graphs_with_it += (graphs_with_it.empty() ? "'" : ", '") + g + "'";
        if (matches++ == 0) found = &s;
    }
    if (!found)
        throw Error(x + ": no such file, and " + file.source + " has no schedule '" + x + "'" +
                    (graph_name.empty() ? std::string() : " for graph '" + graph_name + "'") + " (its schedules: " +
                    (known.empty() ? std::string("none") : known) + ")");
    // Names are unique per graph only: without --graph, several graphs may have this one.
    if (matches > 1)
        throw UsageError(args.command + ": graphs " + graphs_with_it + " each have a schedule '" + x +
                         "'; choose one with --graph NAME");
    Schedule out;
    out.graph = static_cast<int>(found->graph);
    out.order = found->order;
    return out;
}

} // namespace fxmem::cli
