// export FILE (--perfetto OUT.json | --memory-viz OUT.pickle) [--graph G | --pair K | --whole-step]:
// the timeline for Perfetto (ui.perfetto.dev) or PyTorch's memory_viz (docs/exports.md). The
// timeline and both formats are core's (fxmem/export.h), which the app's File > Export calls too.
#include "commands.h"
#include "table.h"
#include "view_arg.h"

#include "fxmem/error.h"
#include "fxmem/export.h"
#include "fxmem/io.h"
#include "fxmem/units.h"

#include <ostream>

namespace fxmem::cli {

int run_export(const Args& args, std::ostream& out) {
    const auto perfetto = args.value("--perfetto");
    const auto memory_viz = args.value("--memory-viz");
    if (!perfetto && !memory_viz) throw UsageError("export: give --perfetto OUT.json or --memory-viz OUT.pickle");
    if (perfetto && memory_viz) throw UsageError("export: give one of --perfetto and --memory-viz");
    if (args.has("--until-peak") && !memory_viz) throw UsageError("export: --until-peak goes with --memory-viz");
    const std::string path = perfetto ? *perfetto : *memory_viz;
    // A path that cannot be written, or that is an input, fails before the work.
    check_output_path(args, path, "export", perfetto ? "--perfetto" : "--memory-viz", "trace");
    const auto file = std::make_shared<const GraphFile>(load_file(args.file));
    const ExportTimeline t = export_timeline(file, view_option(*file, args, ViewFallback::FileView));
    const std::string_view scope = to_string(t.scope);
    if (const std::string note = cpu_only_note(*file, devices_counted(*file, args)); !note.empty()) out << note << '\n';
    if (perfetto) {
        const std::size_t events = save_perfetto(path, *file, t);
        out << "wrote " << elide(path) << ": " << events << " trace events, " << t.sections.size()
            << (t.sections.size() == 1 ? " graph" : " graphs") << " (" << scope << "), " << t.total.size()
            << " steps, peak " << format_bytes(t.peak) << " (" << t.peak << " bytes) at step " << t.peak_index << '\n';
        return 0;
    }
    MemoryVizOptions options;
    options.until_peak = args.has("--until-peak");
    const MemoryVizSummary s = save_memory_viz(path, *file, t, options);
    out << "wrote " << elide(path) << ": " << s.entries << " trace entries for " << s.stays << " allocations, "
        << t.sections.size() << (t.sections.size() == 1 ? " graph" : " graphs") << " (" << scope << ")"
        << (options.until_peak ? ", up to the peak" : "") << "; peak " << format_bytes(t.peak) << " (" << t.peak
        << " bytes) at step " << t.peak_index << ", " << format_bytes(s.peak) << " (" << s.peak
        << " bytes) in 512-byte blocks at step " << s.peak_index << "; devices:";
    for (std::size_t d = 0; d < s.devices.size(); ++d) out << ' ' << d << '=' << elide(s.devices[d]);
    out << '\n';
    return 0;
}

} // namespace fxmem::cli
