// The plain data a TimelinePlot shows besides its profile, shared with its overlays (and known to
// callers as TimelinePlot::Marker, ::Band and ::Curve).
#pragma once
#include <QColor>
#include <QString>

#include <cstdint>
#include <vector>

namespace timeline {

// Where a graph of a joined view starts.
struct Marker {
    std::int64_t step = 0;
    QString label;
};

// One stacked band: a value per profile step, bands listed bottom to top.
struct Band {
    QString name;
    QColor colour;
    std::vector<std::int64_t> values;
};

// One order of a comparison, drawn as a line with its peak marked.
struct Curve {
    QString name;
    std::vector<std::int64_t> profile;
    std::size_t peakStep = 0;
};

// Legend entries stay short: a long schedule or module name is cut in the middle, each half
// escaped (elided(): a U+202E in a module name would reverse the legend's text after it).
QString legendName(const QString& name);

} // namespace timeline
