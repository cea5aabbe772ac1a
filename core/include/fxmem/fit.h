// The largest value of one symbol at which a file's peak fits a memory limit (fxmem-cli fit, the
// app's "Largest that fits"): exact, not sampled. The live sets at each step do not depend on
// sizes, so a peak is a maximum over steps of sums of storage sizes; when every storage size is
// non-decreasing in the symbol (checked on the expressions' form, below) so is the peak, and a
// galloping then binary search with one full evaluation per probe finds the answer in
// O(log range) probes. Otherwise every value of the range is scanned from its minimum (refused
// beyond FitQuery::max_scan values).
//
// Lifetime and threads: FitResult is a value; fit reads the file during the call only. Any
// number of threads may fit on one shared GraphFile.
#pragma once
#include "fxmem/cancel.h"
#include "fxmem/model.h"
#include "fxmem/symbolic.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

namespace fxmem {

struct FitQuery {
    std::size_t symbol = 0; // the symbol varied
    SizeBinding binding;    // the other symbols' values (the varied one's is ignored)
    std::int64_t limit = 0; // bytes
    // A value expected to fit (another measure's answer): the search starts above it when it
    // fits, else from the range's minimum.
    std::optional<std::int64_t> fits_from;
    // Search as if the measure grew with the symbol, whatever the expressions (a measure that is
    // a heuristic's result, such as a recompute search's plan, which no form check covers).
    bool assume_monotone = false;
    // The measure counts CPU storages too (--devices all). Otherwise a CPU storage's size, and any
    // stride or storage offset, that overflows int64 at a value does not decide whether it fits
    // (BindLeniency): the answer is the counted memory's alone.
    bool count_cpu = false;
    std::int64_t max_scan = 1'000'000; // values a scan may visit
    // Polled before every evaluation: throws fxmem::Cancelled (the app's job, cancelled mid-scan).
    CancelCheck cancelled;
    // Called every `progress_every` evaluations with the value just evaluated and the count so far.
    std::function<void(std::int64_t value, std::size_t probes)> progress;
    std::size_t progress_every = 1000;
    // Seconds the search may take (0: no limit): past it, the answer so far (FitResult::stopped).
    double time_limit_s = 0;
};

struct FitResult {
    // The largest v such that every value from the range's minimum to v fits; nullopt when even
    // the minimum does not.
    std::optional<std::int64_t> max_value, peak_at_max;
    // The value after it (the minimum when nothing fits), nullopt at the range's max; its peak,
    // nullopt when the sizes overflow int64 there.
    std::optional<std::int64_t> next_value, peak_at_next;
    bool monotone = false;  // searched (proven or assumed monotone), else scanned
    std::size_t probes = 0; // evaluations of the measure
    // The time limit ended the search: every value from the minimum to max_value fits, and
    // next_value was not evaluated (nullopt) unless the search had found it.
    bool stopped = false;
    // A scan whose minimum does not fit (nothing fits from it): the first value after it that
    // fits, and the last value of the run of values from there that all fit; nullopt when no
    // value of the range (or of the values scanned before a limit) fits.
    std::optional<std::int64_t> fits_first, fits_last;
};

// The peak a fit measures, of a file bound at one value (the pair peak, the whole step...).
using FitMeasure = std::function<std::int64_t(const GraphFile&)>;

// Throws Error on a query outside the file (symbol index, binding length, a binding value outside
// its range), on a size expression that is invalid at a probed value (not an overflow: that value
// does not fit, when the overflow is in a counted storage's size or the counted total) and when a
// scan would exceed max_scan values; Cancelled when query.cancelled says.
FitResult fit_symbol(GraphFile file, const FitQuery& query, const FitMeasure& measure);

// Whether `code` never decreases as symbol `symbol` grows from `values[symbol]` (its minimum),
// the other symbols fixed at `values`: decided on its form (sums, products and powers of
// non-negative increasing terms, FloorDiv/CeilDiv by a positive constant, Max/Min of increasing
// terms, subtraction of a constant). False means "not proven", not "decreasing".
bool non_decreasing_in(std::span<const ExprInstr> code, std::size_t symbol, std::span<const std::int64_t> values);

} // namespace fxmem
