// The implicit centred interval tree over profile indices that LiveSetIndex (the estimator's live
// sets) and ProgramLiveIndex (a program's live buffers) keep. An interval [b, e), b < e, sits at
// the centre c = e with the bits below the highest bit in which b and e differ cleared; then
// b < c <= e, and every interval containing an index i sits at one of the `levels` centres on
// i's path. At a centre with i < c exactly the intervals with b <= i contain i (a prefix of the
// bucket by ascending begin); with i >= c those with e > i (a prefix of the bucket by descending
// end). Built with counting sorts in O(intervals + positions); a query visits `levels` buckets and
// stops each scan at its first miss: O(log positions + hits).
#pragma once
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fxmem::detail {

// The tree's arrays, owned by the index that keeps it (their members are named alike).
struct CentredBuckets {
    unsigned& levels;
    std::vector<std::uint32_t>& bucket; // 2^levels + 1 offsets into by_begin and by_end
    std::vector<std::uint32_t>& by_begin;
    std::vector<std::uint32_t>& by_end;
};
struct ConstCentredBuckets {
    unsigned levels;
    const std::vector<std::uint32_t>& bucket;
    const std::vector<std::uint32_t>& by_begin;
    const std::vector<std::uint32_t>& by_end;
};

inline std::size_t interval_centre(std::int64_t begin, std::int64_t end) {
    const auto b = static_cast<std::uint64_t>(begin), e = static_cast<std::uint64_t>(end);
    const unsigned h = static_cast<unsigned>(std::bit_width(b ^ e)) - 1;
    return static_cast<std::size_t>((e >> h) << h);
}

// `count` intervals [begin(k), end(k)) with 0 <= begin < end <= last.
template <class Begin, class End>
void build_centred(const CentredBuckets& t, std::size_t last, std::uint32_t count, const Begin& begin, const End& end) {
    t.levels = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(last)));
    const std::size_t centres = std::size_t{1} << t.levels;
    t.bucket.assign(centres + 1, 0);
    for (std::uint32_t k = 0; k < count; ++k) ++t.bucket[interval_centre(begin(k), end(k)) + 1];
    for (std::size_t c = 0; c < centres; ++c) t.bucket[c + 1] += t.bucket[c];
    // A counting sort by `key` (ascending, ties by k), then a stable spread into the buckets.
    const std::size_t positions = last + 1;
    std::vector<std::uint32_t> count_of(positions + 1), sorted(count), fill(t.bucket.size() - 1);
    const auto spread = [&](std::vector<std::uint32_t>& out, const auto& key) {
        std::fill(count_of.begin(), count_of.end(), 0);
        for (std::uint32_t k = 0; k < count; ++k) ++count_of[key(k) + 1];
        for (std::size_t i = 0; i < positions; ++i) count_of[i + 1] += count_of[i];
        for (std::uint32_t k = 0; k < count; ++k) sorted[count_of[key(k)]++] = k;
        std::copy(t.bucket.begin(), t.bucket.end() - 1, fill.begin());
        out.resize(count);
        for (std::uint32_t k : sorted) out[fill[interval_centre(begin(k), end(k))]++] = k;
    };
    spread(t.by_begin, [&](std::uint32_t k) { return static_cast<std::size_t>(begin(k)); });
    spread(t.by_end, [&](std::uint32_t k) { return last - static_cast<std::size_t>(end(k)); });
}

// Calls take(k) for each interval containing index i.
template <class Begin, class End, class Take>
void stab_centred(const ConstCentredBuckets& t, std::size_t i, const Begin& begin, const End& end, const Take& take) {
    const auto at = static_cast<std::int64_t>(i);
    for (unsigned h = 0; h < t.levels; ++h) {
        const std::size_t c = ((i >> (h + 1)) << (h + 1)) | (std::size_t{1} << h);
        const std::uint32_t lo = t.bucket[c], hi = t.bucket[c + 1];
        if (i < c) {
            for (std::uint32_t k = lo; k < hi && begin(t.by_begin[k]) <= at; ++k) take(t.by_begin[k]);
        } else {
            for (std::uint32_t k = lo; k < hi && end(t.by_end[k]) > at; ++k) take(t.by_end[k]);
        }
    }
}

} // namespace fxmem::detail
