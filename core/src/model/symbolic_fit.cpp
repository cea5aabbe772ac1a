// fit_symbol and the monotonicity check of fxmem/fit.h.
#include "fxmem/error.h"
#include "fxmem/fit.h"
#include "model/quote.h"

#include <chrono>
#include <limits>
#include <vector>

namespace fxmem {

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// A sub-expression's shape as the symbol grows: constant, non-decreasing, or not known.
enum class Trend : std::uint8_t { Const, Up, Unknown };

struct Abstract {
    Trend trend = Trend::Unknown;
    std::int64_t low = 0; // its value at the symbol's minimum: its least value when Const or Up
};

bool known(Trend t) { return t != Trend::Unknown; }
Trend join(Trend a, Trend b) {
    if (!known(a) || !known(b)) return Trend::Unknown;
    return a == Trend::Const && b == Trend::Const ? Trend::Const : Trend::Up;
}

} // namespace

bool non_decreasing_in(std::span<const ExprInstr> code, std::size_t symbol, std::span<const std::int64_t> values) {
    std::vector<Abstract> st;
    st.reserve(code.size());
    for (const ExprInstr& in : code) {
        // The value at the minimum, as evaluate computes it: one instruction over the tops.
        Abstract r;
        switch (in.op) {
        case ExprOp::Const: r = {Trend::Const, in.value}; break;
        case ExprOp::Sym: {
            const auto i = static_cast<std::size_t>(in.value);
            r = {i == symbol ? Trend::Up : Trend::Const, values[i]};
            break;
        }
        default: {
            // Operands: the last `n` entries.
            const std::size_t n = in.op == ExprOp::Neg || in.op == ExprOp::Pow   ? 1
                                  : in.op == ExprOp::Max || in.op == ExprOp::Min ? static_cast<std::size_t>(in.value)
                                                                                 : 2;
            const std::span<const Abstract> args(st.data() + st.size() - n, n);
            std::vector<ExprInstr> sub; // the instruction over constant operands: its value at the minimum
            for (const Abstract& a : args) sub.push_back({ExprOp::Const, a.low});
            sub.push_back(in);
            const std::optional<std::int64_t> low = evaluate(sub, {});
            Trend t = Trend::Unknown;
            const Abstract& a = args[0];
            const Abstract& b = args[n > 1 ? 1 : 0];
            switch (in.op) {
            case ExprOp::Add: t = join(a.trend, b.trend); break;
            case ExprOp::Sub: t = b.trend == Trend::Const ? a.trend : Trend::Unknown; break;
            case ExprOp::Neg: t = a.trend == Trend::Const ? Trend::Const : Trend::Unknown; break;
            case ExprOp::Mul:
                if (a.trend == Trend::Const && b.trend == Trend::Const) {
                    t = Trend::Const;
                } else if (known(a.trend) && known(b.trend)) {
                    // c * up is up for c >= 0; up * up is up when both are >= 0 throughout.
                    const bool a_ok = a.trend == Trend::Const ? a.low >= 0 : b.trend == Trend::Const || a.low >= 0;
                    const bool b_ok = b.trend == Trend::Const ? b.low >= 0 : a.trend == Trend::Const || b.low >= 0;
                    t = a_ok && b_ok ? Trend::Up : Trend::Unknown;
                }
                break;
            case ExprOp::Pow:
                if (in.value == 0 || a.trend == Trend::Const) {
                    t = Trend::Const;
                } else if (in.value == 1 || (a.trend == Trend::Up && a.low >= 0)) {
                    t = a.trend;
                }
                break;
            case ExprOp::FloorDiv:
            case ExprOp::CeilDiv:
                if (b.trend == Trend::Const && b.low > 0) t = a.trend;
                break;
            case ExprOp::Mod:
                if (a.trend == Trend::Const && b.trend == Trend::Const) t = Trend::Const;
                break;
            case ExprOp::Max:
            case ExprOp::Min:
                t = Trend::Const;
                for (const Abstract& x : args) t = join(t, x.trend);
                break;
            default: break;
            }
            if (!low) t = Trend::Unknown;
            st.resize(st.size() - n);
            r = {t, low.value_or(0)};
        }
        }
        st.push_back(r);
    }
    return st.size() == 1 && known(st[0].trend);
}

FitResult fit_symbol(GraphFile file, const FitQuery& query, const FitMeasure& measure) {
    const SymbolicSizes& sy = file.symbolic;
    if (query.symbol >= sy.symbols.size())
        throw Error(file.source + ": fit: no symbol " + std::to_string(query.symbol));
    const Symbol& sym = sy.symbols[query.symbol];
    const std::int64_t lo = sym.min, hi = sym.max.value_or(kMax);
    SizeBinding b = query.binding;
    if (b.values.size() != sy.symbols.size())
        throw Error(file.source + ": fit: a binding of " + std::to_string(b.values.size()) + " values for " +
                    std::to_string(sy.symbols.size()) + " symbols");

    FitResult r;
    const auto started = std::chrono::steady_clock::now();
    // Whether the time limit has passed (checked between evaluations, never before the first).
    const auto out_of_time = [&] {
        return query.time_limit_s > 0 &&
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() > query.time_limit_s;
    };
    // The peak at v, or nullopt when v's counted sizes overflow int64 (v does not fit); strides,
    // offsets and uncounted CPU storages that overflow are left out of the memory they do not add to.
    const auto peak_at = [&](std::int64_t v) -> std::optional<std::int64_t> {
        throw_if_cancelled(query.cancelled);
        b.values[query.symbol] = v;
        ++r.probes;
        if (query.progress && query.progress_every > 0 && r.probes % query.progress_every == 0)
            query.progress(v, r.probes);
        if (std::optional<BindError> e = try_bind_sizes(file, b, BindLeniency{true, !query.count_cpu})) {
            if (e->kind == BindError::Kind::Overflow) return std::nullopt;
            throw Error(std::move(e->message));
        }
        return measure(file);
    };
    const auto fits = [&](const std::optional<std::int64_t>& peak) { return peak && *peak <= query.limit; };
    const auto stop_at = [&](std::int64_t good, std::optional<std::int64_t> good_peak) {
        r.stopped = true;
        r.max_value = good;
        r.peak_at_max = good_peak;
        return r;
    };
    const auto finish = [&](std::optional<std::int64_t> good, std::optional<std::int64_t> good_peak) {
        r.max_value = good;
        r.peak_at_max = good_peak;
        if (!good || *good < hi) {
            r.next_value = good ? *good + 1 : lo;
            r.peak_at_next = peak_at(*r.next_value);
        }
        return r;
    };

    // The sizes' form decides the search.
    b.values[query.symbol] = lo;
    r.monotone = query.assume_monotone;
    if (!r.monotone) {
        r.monotone = true;
        for (const auto& s : sy.storage_sizes)
            if (!non_decreasing_in(sy.expr_code(s.expr), query.symbol, b.values)) {
                r.monotone = false;
                if (sym.max && static_cast<std::uint64_t>(*sym.max) - static_cast<std::uint64_t>(lo) <
                                   static_cast<std::uint64_t>(query.max_scan))
                    break;
                throw Error(file.source + ": fit: storage id " +
                            std::to_string(file.storages[s.storage.index()].file_id) + "'s size " +
                            detail::quote(sy.expr_text(s.expr)) + " is not non-decreasing in " +
                            detail::quote(sym.name) + " by its form, so fit would scan every value of its range " +
                            sym.range_text() + ", more than " + std::to_string(query.max_scan) + " values");
            }
    }

    std::int64_t good = query.fits_from.value_or(lo);
    std::optional<std::int64_t> good_peak = peak_at(good);
    if (!fits(good_peak) && query.fits_from) { // it does not fit under this measure: from the minimum
        good = lo;
        good_peak = peak_at(good);
    }
    if (!fits(good_peak)) {
        r.next_value = lo;
        r.peak_at_next = good_peak;
        if (r.monotone) return r; // nothing above the minimum fits either
        // Not monotone: which values fit instead (the hint among them, perhaps).
        const std::int64_t end =
            static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) < static_cast<std::uint64_t>(query.max_scan)
                ? hi
                : lo + query.max_scan;
        for (std::int64_t v = lo; v < end;) {
            if (out_of_time()) {
                r.stopped = true;
                break;
            }
            ++v;
            if (!fits(peak_at(v))) {
                if (r.fits_first) break;
                continue;
            }
            if (!r.fits_first) r.fits_first = v;
            r.fits_last = v;
        }
        return r;
    }
    if (!r.monotone) {
        while (good < hi) {
            if (out_of_time()) return stop_at(good, good_peak);
            const std::optional<std::int64_t> p = peak_at(good + 1);
            if (!fits(p)) {
                r.max_value = good;
                r.peak_at_max = good_peak;
                r.next_value = good + 1;
                r.peak_at_next = p;
                return r;
            }
            ++good;
            good_peak = p;
        }
        return finish(good, good_peak);
    }
    // Gallop: good + 1, + 2, + 4 ... until a value does not fit or the range ends.
    std::int64_t step = 1, bad = 0;
    bool found_bad = false;
    while (good < hi) {
        if (out_of_time()) return stop_at(good, good_peak);
        // hi - good in unsigned: it passes int64's range when good is negative.
        const std::uint64_t room = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(good);
        const std::int64_t probe = static_cast<std::uint64_t>(step) > room ? hi : good + step;
        const std::optional<std::int64_t> p = peak_at(probe);
        if (!fits(p)) {
            bad = probe;
            found_bad = true;
            break;
        }
        good = probe;
        good_peak = p;
        step = step > kMax / 2 ? kMax : step * 2;
    }
    if (!found_bad) return finish(good, good_peak);
    // good fits, bad does not: bisect.
    while (static_cast<std::uint64_t>(bad) - static_cast<std::uint64_t>(good) > 1) {
        if (out_of_time()) return stop_at(good, good_peak);
        const auto mid =
            static_cast<std::int64_t>(static_cast<std::uint64_t>(good) +
                                      (static_cast<std::uint64_t>(bad) - static_cast<std::uint64_t>(good)) / 2);
        const std::optional<std::int64_t> p = peak_at(mid);
        if (fits(p)) {
            good = mid;
            good_peak = p;
        } else {
            bad = mid;
        }
    }
    return finish(good, good_peak);
}

} // namespace fxmem
