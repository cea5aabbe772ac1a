#include "timeline/downsample.h"

#include <algorithm>

void downsampleMax(std::span<const std::int64_t> values, std::size_t first, std::size_t last, std::size_t buckets,
                   QVector<double>& keys, QVector<double>& out) {
    keys.clear();
    out.clear();
    if (values.empty() || first > last || first >= values.size()) return;
    last = std::min(last, values.size() - 1);
    const std::size_t count = last - first + 1;
    buckets = std::max<std::size_t>(buckets, 1);
    if (count <= 2 * buckets) {
        keys.reserve(static_cast<qsizetype>(count));
        out.reserve(static_cast<qsizetype>(count));
        for (std::size_t i = first; i <= last; ++i) {
            keys.push_back(static_cast<double>(i));
            out.push_back(static_cast<double>(values[i]));
        }
        return;
    }
    keys.reserve(static_cast<qsizetype>(buckets + 1));
    out.reserve(static_cast<qsizetype>(buckets + 1));
    for (std::size_t b = 0; b < buckets; ++b) {
        const std::size_t lo = first + count * b / buckets, hi = first + count * (b + 1) / buckets;  // [lo, hi)
        std::int64_t m = values[lo];
        for (std::size_t i = lo + 1; i < hi; ++i) m = std::max(m, values[i]);
        keys.push_back(static_cast<double>(lo));
        out.push_back(static_cast<double>(m));
    }
    keys.push_back(static_cast<double>(last));
    out.push_back(static_cast<double>(values[last]));
}
