// fit FILE --memory M --vary SYM [--set ...] [--pair P | --whole-step] [--max-extra-percent P] [--json]:
// the whole step by default when the file has one;
// the largest value of SYM such that every value from its range's minimum up to it fits in M
// (fxmem/fit.h), measured as peak measures it; with --max-extra-percent, also with a recompute plan.
#include "commands.h"
#include "table.h"
#include "text.h"
#include "view_arg.h"

#include "fxmem/error.h"
#include "fxmem/fit.h"
#include "fxmem/io.h"
#include "fxmem/remat.h"
#include "fxmem/step_remat.h"
#include "fxmem/symbol_words.h"
#include "fxmem/symbolic.h"
#include "fxmem/units.h"
#include "fxmem/whole_step.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <iostream>
#include <ostream>

namespace fxmem::cli {

namespace {

// The joint graph whose recompute plans fit measures: pair K's, else the file's first.
GraphId fit_joint(const GraphFile& file, std::size_t k) {
    if (k < file.pairs.size() && file.pairs[k].joint) return *file.pairs[k].joint;
    for (std::size_t i = 0; i < file.graphs.size(); ++i)
        if (file.graphs[i].kind == GraphKind::Joint) return GraphId(static_cast<std::int32_t>(i));
    throw Error(file.source + ": --max-extra-percent needs a joint graph to plan recomputation on, and the file has "
                              "none (capture with fxmem_export.backend(PATH, joint=True) or fxmem_export.sweep)");
}

// Seconds of remat search per probe: the search is deterministic when it ends within its limit,
// which it does on the bundled examples; a larger graph gets the best plan found in that time.
constexpr double kRematProbeSeconds = 2.0;

} // namespace

int run_fit(const Args& args, std::ostream& out) {
    const auto memory = args.value("--memory");
    const auto vary = args.value("--vary");
    if (!memory) throw UsageError("fit: missing --memory M (bytes, or 80GiB, 24GB, 512MiB)");
    if (!vary) throw UsageError("fit: missing --vary SYM (the symbol to vary, by name or source)");
    const std::int64_t limit = *memory_option(args);
    if (args.has("--whole-step"))
        refuse_in_mode(args, "--whole-step", {"--pair"}, "the whole step measures every graph of the step");
    const std::optional<double> percent =
        args.has("--max-extra-percent")
            ? std::optional(parse_number("--max-extra-percent", *args.value("--max-extra-percent")))
            : std::nullopt;
    if (args.has("-o") && !percent)
        throw UsageError("fit: -o writes the recompute plan of the answer; it needs --max-extra-percent P");
    check_output_option(args, "fit", "plan");
    const DeviceFilter devices = device_filter(args);
    if (percent && devices != DeviceFilter::NonCpu)
        throw UsageError("fit: --devices all does not apply with --max-extra-percent: a plan is scored on non-CPU "
                         "storages, as PyTorch's partitioner counts them");

    GraphFile file = load_file(args.file);
    // A file with a step answers for the whole step unless a pair is asked for: what decides an
    // out-of-memory error is the step's peak, parameters, gradients and optimizer state included.
    const bool whole = args.has("--whole-step") || (!args.has("--pair") && !file.step.empty());
    const std::size_t k = args.has("--pair") ? pair_option(file, *args.value("--pair")) : 0;
    const std::string cpu_note = cpu_only_note(file, counted_for(file, devices));
    const std::size_t sym = symbol_option(file, "--vary", *vary);
    const Symbol symbol = file.symbolic.symbols[sym];
    FitQuery q;
    q.symbol = sym;
    q.count_cpu = devices == DeviceFilter::All;
    if (const auto t = args.value("--time-limit")) q.time_limit_s = parse_number("--time-limit", *t, "seconds");
    // A long scan (a Mod term over a large range) says how far it is, on stderr.
    q.progress = [&symbol](std::int64_t value, std::size_t probes) {
        std::cerr << "fxmem-cli fit: " << probes << " evaluations, at " << escape_control(elide(symbol.name)) << "="
                  << value << '\n';
    };
    q.progress_every = 10000;
    std::vector<std::uint8_t> given;
    q.binding = binding_option(file, args, &given);
    q.limit = limit;
    if (given[sym]) throw UsageError("fit: --set gives '" + symbol.name + "', the symbol --vary varies");
    // The other symbols' values checked once, with their ranges named (an overflow at the
    // minimum only means that nothing fits).
    q.binding.values[sym] = symbol.min;
    if (const std::optional<BindError> e = try_bind_sizes(file, q.binding); e && e->kind == BindError::Kind::Invalid)
        throw Error(e->message);
    const std::vector<Symbol> symbols = file.symbolic.symbols;

    FitMeasure measure;
    if (whole) {
        if (file.step.empty())
            throw Error(file.source +
                        ": --whole-step: the file has no 'step' (a capture of one training step writes it)");
        measure = [devices](const GraphFile& f) { return whole_step(f, counted_for(f, devices)).peak; };
    } else {
        (void)pair_at(file, k, "fit --whole-step measures the whole step");
        measure = [devices, k](const GraphFile& f) {
            const Pair& p = f.pairs[k];
            return analyze_pair(f, f.graph(p.forward), f.graph(p.backward), counted_for(f, devices)).peak.peak;
        };
    }
    std::optional<GraphId> joint;
    if (percent && !whole) joint = fit_joint(file, k);
    const GraphFile unbound = percent ? file : GraphFile{};
    const FitResult r = fit_symbol(percent ? file : std::move(file), q, measure);

    // With a recompute plan: the same search from the plain answer up, each probe a remat search
    // (the whole step: a plan for the region that holds the step's peak at that size, the step
    // scored under it; fxmem/step_remat.h).
    std::optional<FitResult> remat;
    RematOptions options;
    if (percent) {
        FitQuery rq = q;
        rq.fits_from = r.max_value;
        rq.assume_monotone = true;
        options.max_extra_percent = *percent;
        options.time_limit_s = kRematProbeSeconds;
        if (whole)
            remat = fit_symbol(unbound, rq, [&](const GraphFile& f) { return plan_whole_step(f, options).peak(); });
        else
            remat = fit_symbol(unbound, rq, [&](const GraphFile& f) {
                return search_remat(analyze_joint(f, *joint), options).peak.peak;
            });
    }
    // The plan of the answer, searched again at its size (the search is deterministic within its
    // time limit): what -o writes and the text names.
    struct AnswerPlan {
        RematPlan plan;
        std::string joint;
        std::int64_t pair_peak = 0, extra_flops = 0;
        bool used = true; // the whole step is lower with it than without
    };
    std::optional<AnswerPlan> answer_plan;
    if (percent && remat->max_value) {
        GraphFile at = unbound;
        SizeBinding b = q.binding;
        b.values[sym] = *remat->max_value;
        bind_sizes(at, b);
        if (whole) {
            const StepPlan sp = plan_whole_step(at, options);
            if (sp.plan) {
                const JointGraph jg = analyze_joint(at, sp.region->joint);
                answer_plan = AnswerPlan{make_plan(jg, *sp.plan), jg.g().name, sp.plan->peak.peak, sp.plan->extra_flops,
                                         sp.uses_plan()};
            }
        } else {
            const JointGraph jg = analyze_joint(at, *joint);
            const RematResult rr = search_remat(jg, options);
            answer_plan = AnswerPlan{make_plan(jg, rr), jg.g().name, rr.peak.peak, rr.extra_flops, true};
        }
    }
    if (const auto path = args.value("-o")) {
        if (!answer_plan)
            throw Error(args.file + ": -o: no recompute plan to write (" +
                        (remat && remat->max_value ? std::string("the step peaks outside every joint graph's region")
                                                   : std::string("nothing fits, even with a plan")) +
                        ")");
        save_plan(answer_plan->plan, *path);
    }

    const auto null_or = [](const std::optional<std::int64_t>& v) {
        return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
    };
    if (args.has("--json")) {
        nlohmann::ordered_json j;
        j["symbol"] = symbol.name;
        j["max_value"] = null_or(r.max_value);
        j["peak_at_max"] = null_or(r.peak_at_max);
        j["peak_at_next"] = null_or(r.peak_at_next);
        j["limit"] = limit;
        j["next_value"] = null_or(r.next_value);
        j["measure"] = whole ? "whole_step" : "pair";
        j["search"] = r.monotone ? "monotone" : "scan";
        j["evaluations"] = r.probes;
        j["stopped"] = r.stopped;
        j["fits_first"] = null_or(r.fits_first);
        j["fits_last"] = null_or(r.fits_last);
        if (percent) {
            nlohmann::ordered_json w;
            w["max_extra_percent"] = percent.value_or(0);
            w["max_value"] = null_or(remat->max_value);
            w["peak_at_max"] = null_or(remat->peak_at_max);
            w["peak_at_next"] = null_or(remat->peak_at_next);
            w["evaluations"] = remat->probes;
            if (answer_plan) {
                w["joint"] = answer_plan->joint;
                w["plan_pair_peak"] = answer_plan->pair_peak;
                w["plan_extra_flops"] = answer_plan->extra_flops;
                w["plan_used"] = answer_plan->used;
            }
            j["with_recompute"] = w;
        }
        out << j.dump() << '\n';
        return 0;
    }
    if (!cpu_note.empty()) out << cpu_note << '\n';
    // The symbol as users know it too: the app's word for it ("batch", "sequence").
    const std::string word = symbol_words(symbols)[sym];
    std::string aka = symbol.source.empty() ? std::string() : escape_control(elide(symbol.source));
    if (word != symbol.name && word != symbol.source) aka += (aka.empty() ? "" : ", ") + escape_control(elide(word));
    const std::string name = escape_control(elide(symbol.name)) + (aka.empty() ? std::string() : " (" + aka + ")");
    out << "fit " << name << " in " << bytes_text(limit) << ", measured as the "
        << (whole ? std::string("whole step") : "pair " + std::to_string(k) + " peak") << '\n';
    std::string others;
    for (std::size_t i = 0; i < q.binding.values.size(); ++i)
        if (i != sym)
            others += (others.empty() ? "" : ", ") + escape_control(elide(symbols[i].name)) + "=" +
                      std::to_string(q.binding.values[i]);
    if (!others.empty()) out << "  at " << others << '\n';
    out << "  range " << symbol.range_text() << "; "
        << (r.monotone ? "every size grows with it: searched" : "scanned from the minimum") << ", " << r.probes
        << " evaluations\n";
    const std::string shown = escape_control(elide(symbol.name));
    if (r.max_value) {
        out << "largest " << shown << ": " << (r.stopped ? "at least " : "") << *r.max_value << " (peak "
            << bytes_text(*r.peak_at_max) << ")\n";
    } else if (r.fits_first) {
        // The sizes do not grow with the symbol: values above the minimum may fit.
        out << "nothing fits from the minimum " << symbol.min << ", but every value from " << *r.fits_first << " to "
            << *r.fits_last << " fits (the first such run of values)\n";
    } else {
        out << "nothing fits: even the minimum " << symbol.min << " does not"
            << (r.monotone  ? ""
                : r.stopped ? ", nor any value scanned"
                            : ", nor any value of its range")
            << '\n';
    }
    if (r.next_value)
        out << "  " << shown << "=" << *r.next_value << " needs "
            << (r.peak_at_next ? bytes_text(*r.peak_at_next) : std::string("more than 2^63-1 bytes")) << '\n';
    else if (!r.stopped)
        out << "  that is the range's maximum\n";
    if (r.stopped) out << "  the time limit ended the search after " << r.probes << " evaluations (--time-limit)\n";
    if (percent) {
        out << "with a recompute plan of at most " << percent.value_or(0) << " % extra FLOPs: ";
        if (remat->max_value)
            out << "largest " << *remat->max_value << " (" << (whole ? "step peak " : "plan peak ")
                << bytes_text(*remat->peak_at_max) << ")\n";
        else
            out << "nothing fits\n";
        if (answer_plan) {
            out << "  the plan at " << shown << "=" << *remat->max_value << ": joint graph '"
                << escape_control(elide(answer_plan->joint)) << "', pair peak " << bytes_text(answer_plan->pair_peak)
                << ", extra FLOPs " << answer_plan->extra_flops << '\n';
            if (!answer_plan->used) out << "  (it does not lower the step's peak there: the step runs without it)\n";
            if (const auto path = args.value("-o")) out << "  written to " << escape_control(*path) << '\n';
        }
    }
    return 0;
}

} // namespace fxmem::cli
