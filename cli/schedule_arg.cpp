// --schedule X: a SCHED file, or the name of a schedule stored in the graph file. A path that
// exists is always read as a file (so a file named like a stored schedule still wins); otherwise
// X must name a stored schedule, of the --graph when one is given. --schedule-name NAME picks a
// stored schedule without looking for a file, for names such as "." or "/etc/passwd".
#include "commands.h"

#include "fxmem/error.h"
#include "fxmem/schedule.h"
#include "table.h"
#include "text.h"

#include <sys/stat.h>

namespace fxmem::cli {

namespace {

std::string quoted(const std::string& s) { return "'" + elide(s) + "'"; }

// The stored schedule `name` (of --graph when given). Unknown names are invalid input naming a
// few of the file's schedules; a name several graphs use, without --graph, is bad usage.
Schedule stored_schedule(const GraphFile& file, const std::string& name, const Args& args, const std::string& option) {
    const std::string graph_name = args.value("--graph").value_or("");
    const NamedSchedule* found = nullptr;
    std::vector<std::string> graphs_with_it, known;
    std::size_t matches = 0;
    for (const NamedSchedule& s : file.schedules) {
        const std::string& g = file.graph(s.graph).name;
        if (known.size() < 10) known.push_back(quoted(s.name) + " (graph " + quoted(g) + ")");
        if (s.name != name || (!graph_name.empty() && g != graph_name)) continue;
        if (graphs_with_it.size() < 10) graphs_with_it.push_back(quoted(g));
        if (matches++ == 0) found = &s;
    }
    if (!found)
        throw Error((option == "--schedule" ? elide(name) + ": no such file, and " : std::string()) + file.source +
                    " has no schedule " + quoted(name) +
                    (graph_name.empty() ? std::string() : " for graph " + quoted(graph_name)) + " (its schedules: " +
                    (known.empty() ? std::string("none") : capped_list(known, file.schedules.size())) + ")");
    // Names are unique per graph only: without --graph, several graphs may have this one.
    if (matches > 1)
        throw UsageError(args.command + ": graphs " + capped_list(graphs_with_it, matches) + " each have a schedule " +
                         quoted(name) + "; choose one with --graph NAME");
    Schedule out;
    out.graph = found->graph;
    out.order = found->order;
    return out;
}

bool has_stored(const GraphFile& file, const std::string& name) {
    for (const NamedSchedule& s : file.schedules)
        if (s.name == name) return true;
    return false;
}

} // namespace

Schedule resolve_schedule(const GraphFile& file, const std::string& x, const Args& args) {
    struct stat st {};
    if (::stat(x.c_str(), &st) != 0) return stored_schedule(file, x, args, "--schedule");
    try {
        return load_schedule(file, x, args.value("--graph").value_or(""));
    } catch (const Error& e) {
        if (!has_stored(file, x)) throw;
        // A path wins, but the user may have meant the stored schedule of the same name.
        throw Error(std::string(e.what()) + "\n(" + file.source + " also holds a schedule named " + quoted(x) +
                    "; --schedule reads a path first: use --schedule-name " + quoted(x) + " for the stored one)");
    }
}

std::optional<Schedule> schedule_option(const GraphFile& file, const Args& args) {
    const auto path = args.value("--schedule"), name = args.value("--schedule-name");
    if (path && name) throw UsageError(args.command + ": --schedule and --schedule-name exclude each other");
    if (name) return stored_schedule(file, *name, args, "--schedule-name");
    if (path) return resolve_schedule(file, *path, args);
    return std::nullopt;
}

std::string schedule_label(const Args& args) {
    if (const auto name = args.value("--schedule-name")) return "'" + elide(*name) + "'";
    return elide(args.value("--schedule").value_or(""));
}

} // namespace fxmem::cli
