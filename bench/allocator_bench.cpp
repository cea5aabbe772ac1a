// fxmem-allocator-bench [--events 1000000]
// The caching allocator simulation (fxmem/caching_allocator.h) on a pseudo-random trace: mallocs of
// 512 B to 128 MiB on two streams and frees of random live allocations, about a thousand live at a
// time. Prints CPU seconds (the machine is shared: wall-clock time would measure the neighbours) and
// nanoseconds per event for a few PYTORCH_CUDA_ALLOC_CONF settings, the second replay to the reserved
// peak for its segments included; asserts nothing timed.
#include "fxmem/caching_allocator.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

std::vector<fxmem::AllocEvent> trace(std::size_t count) {
    std::uint64_t state = 2024;
    auto next = [&] { return (state = state * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
    std::vector<fxmem::AllocEvent> events;
    events.reserve(count);
    std::vector<std::uint32_t> live;
    std::uint32_t id = 0;
    while (events.size() < count) {
        const bool malloc = live.size() < 200 || (live.size() < 2000 && next() % 2 == 0);
        if (malloc) {
            const std::int64_t bytes = static_cast<std::int64_t>(512 + next() % 4096) << (next() % 16);
            events.push_back({fxmem::AllocEvent::Kind::Malloc, id, bytes, static_cast<std::uint32_t>(next() % 2)});
            live.push_back(id++);
        } else {
            const std::size_t k = next() % live.size();
            events.push_back({fxmem::AllocEvent::Kind::Free, live[k], 0, 0});
            live[k] = live.back();
            live.pop_back();
        }
    }
    return events;
}

} // namespace

int main(int argc, char** argv) {
    std::size_t count = 1'000'000;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--events") == 0 && i + 1 < argc) {
            count = std::strtoull(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr, "usage: fxmem-allocator-bench [--events N]\n");
            return 2;
        }
    }
    const std::vector<fxmem::AllocEvent> events = trace(count);
    std::printf("%-48s %10s %9s %9s %14s %14s\n", "PYTORCH_CUDA_ALLOC_CONF", "events", "cpu s", "ns/event",
                "peak allocated", "peak reserved");
    for (const char* conf : {"", "expandable_segments:True", "max_split_size_mb:64,roundup_power2_divisions:4",
                             "garbage_collection_threshold:0.6,per_process_memory_fraction:0.9"}) {
        const fxmem::AllocatorConfig config = fxmem::parse_alloc_conf(conf);
        const std::optional<std::int64_t> capacity = config.per_process_memory_fraction < 1.0
                                                         ? std::optional<std::int64_t>(std::int64_t{24} << 30)
                                                         : std::nullopt;
        const std::clock_t t = std::clock();
        const fxmem::AllocatorRun run = fxmem::simulate_caching_allocator(events, config, capacity);
        const double s = static_cast<double>(std::clock() - t) / CLOCKS_PER_SEC;
        std::printf("%-48s %10zu %9.3f %9.0f %14lld %14lld%s\n", *conf ? conf : "(defaults)", events.size(), s,
                    s * 1e9 / static_cast<double>(events.size()), static_cast<long long>(run.peak_allocated),
                    static_cast<long long>(run.peak_reserved), run.oom ? "  (out of memory)" : "");
    }
    return 0;
}
