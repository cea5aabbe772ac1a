// Curve reduction for drawing: at most a few points per pixel column, keeping each bucket's
// maximum so that no peak disappears when a long profile is zoomed out.
#pragma once
#include <QVector>

#include <cstddef>
#include <cstdint>
#include <span>

// Points of values[first..last] (inclusive) keyed by index. With more points than 2 * buckets,
// each of `buckets` equal index ranges becomes one point at its first index holding the range's
// maximum (for a step-left line), and the last index is kept so the curve reaches its end.
void downsampleMax(std::span<const std::int64_t> values, std::size_t first, std::size_t last, std::size_t buckets,
                   QVector<double>& keys, QVector<double>& out);
