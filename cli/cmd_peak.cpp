// peak FILE [--pair K] [--json]: PyTorch's get_peak_memory for forward/backward pair K.
#include "commands.h"
#include "table.h"
#include "view_arg.h"

#include "fxmem/error.h"
#include "fxmem/estimator.h"
#include "fxmem/io.h"
#include "fxmem/units.h"

#include <nlohmann/json.hpp>

#include <ostream>

namespace fxmem::cli {

int run_peak(const Args& args, std::ostream& out) {
    if (args.has("--ranks")) return run_peak_ranks(args, out);
    if (measure_option(args) != Measure::Estimator) return run_measured_peak(args, out);
    refuse_in_mode(args, "--measure estimator", {"--alloc-conf"},
                   "the caching allocator is what --measure reserved simulates");
    if (args.has("--whole-step")) return run_whole_step(args, out);
    const GraphFile file = load_bound(args);
    const std::size_t k = args.has("--pair") ? pair_option(file, *args.value("--pair")) : 0;
    (void)pair_at(file, k, "use 'profile' for a single graph");
    const Graph& fwd = file.graph(file.pairs[k].forward);
    const Graph& bwd = file.graph(file.pairs[k].backward);
    const StorageMask counted = devices_counted(file, args);
    const PeakMemory peak = analyze_pair(file, fwd, bwd, counted).peak;
    const std::optional<std::int64_t> memory = memory_option(args);

    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["forward_peak"] = peak.forward_peak;
        j["backward_baseline"] = peak.backward_baseline;
        j["backward_peak"] = peak.backward_peak;
        j["peak"] = peak.peak;
        if (memory) {
            j["memory"] = *memory;
            j["fits"] = peak.peak <= *memory;
        }
        out << j.dump() << '\n';
        return 0;
    }
    const auto line = [&](const char* label, std::int64_t v) {
        out << label << format_bytes(v) << " (" << v << " bytes)\n";
    };
    if (const std::string note = cpu_only_note(file, counted); !note.empty()) out << note << '\n';
    out << "pair " << k << ": forward '" << elide(fwd.name) << "', backward '" << elide(bwd.name) << "'\n";
    line("forward peak:       ", peak.forward_peak);
    line("backward baseline:  ", peak.backward_baseline);
    line("backward peak:      ", peak.backward_peak);
    line("peak:               ", peak.peak);
    if (memory) out << memory_verdict(peak.peak, *memory) << '\n';
    // The app opens such a file on its whole step, whose peak is another number: say which is which.
    if (!file.step.empty())
        out << "this is the pair's peak; the whole step (" << file.step.size()
            << " graph runs, what the app opens on) has its own: fxmem-cli peak --whole-step\n";
    return 0;
}

} // namespace fxmem::cli
