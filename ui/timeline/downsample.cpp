#include "timeline/downsample.h"

#include <algorithm>

void downsampleMinMax(std::span<const std::int64_t> values, std::size_t first, std::size_t last, std::size_t buckets,
                      QVector<double>& keys, QVector<double>& out) {
    keys.clear();
    out.clear();
    if (values.empty() || first > last || first >= values.size()) return;
    last = std::min(last, values.size() - 1);
    const std::size_t count = last - first + 1;
    buckets = std::max<std::size_t>(buckets, 1);
    const auto push = [&](std::size_t i) {
        keys.push_back(static_cast<double>(i));
        out.push_back(static_cast<double>(values[i]));
    };
    if (count <= 2 * buckets) {
        keys.reserve(static_cast<qsizetype>(count));
        out.reserve(static_cast<qsizetype>(count));
        for (std::size_t i = first; i <= last; ++i) push(i);
        return;
    }
    keys.reserve(static_cast<qsizetype>(2 * buckets + 1));
    out.reserve(static_cast<qsizetype>(2 * buckets + 1));
    for (std::size_t b = 0; b < buckets; ++b) {
        const std::size_t lo = first + count * b / buckets, hi = first + count * (b + 1) / buckets; // [lo, hi)
        std::size_t at_min = lo, at_max = lo;
        for (std::size_t i = lo + 1; i < hi; ++i) {
            if (values[i] < values[at_min]) at_min = i;
            if (values[i] > values[at_max]) at_max = i;
        }
        push(std::min(at_min, at_max));
        if (at_min != at_max) push(std::max(at_min, at_max));
    }
    if (keys.back() != static_cast<double>(last)) push(last);
}

void sampleAt(std::span<const std::int64_t> values, const QVector<double>& keys, QVector<double>& out) {
    out.clear();
    out.reserve(keys.size());
    for (double k : keys) out.push_back(static_cast<double>(values[static_cast<std::size_t>(k)]));
}
