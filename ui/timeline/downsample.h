// Curve reduction for drawing: at most a few points per pixel column. Each column keeps both its
// minimum and its maximum, so neither a peak nor a free (a dip) disappears when a long profile
// is zoomed out. Stacked bands are sampled at the keys chosen for the total, so the drawn bands
// still add up to the drawn total at every point.
#pragma once
#include <QVector>

#include <cstddef>
#include <cstdint>
#include <span>

// Points of values[first..last] (inclusive) keyed by index. With more points than 2 * buckets,
// each of `buckets` equal index ranges becomes the points at the indices of its minimum and of
// its maximum, in index order (one point when they coincide); the last index is always kept so
// the curve reaches its end. For a step-left line each column then spans [min, max].
void downsampleMinMax(std::span<const std::int64_t> values, std::size_t first, std::size_t last, std::size_t buckets,
                      QVector<double>& keys, QVector<double>& out);

// values[key] for each key (integral indices produced by downsampleMinMax).
void sampleAt(std::span<const std::int64_t> values, const QVector<double>& keys, QVector<double>& out);
