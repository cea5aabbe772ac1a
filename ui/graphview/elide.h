// Names for display, elided before they become QStrings: a node name may be 100 MB long, and
// converting it whole (to measure or escape it) would stall the GUI. Only the first bytes that
// could ever fit are converted.
#pragma once
#include <QFontMetricsF>
#include <QString>

#include <cstddef>
#include <string_view>

// At most `maxChars` code points of `s` (cut on a UTF-8 boundary), with "…" when cut.
QString clippedName(std::string_view s, std::size_t maxChars = 200);
// `s` elided to `width` pixels in `fm`; converts at most what `width` can hold.
QString elidedName(std::string_view s, const QFontMetricsF& fm, double width);
