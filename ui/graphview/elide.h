// Names elided to a pixel width, for the graph view's labels. A node name may be 100 MB long:
// only the head that could ever fit is converted (util/text.h's elided(), the one place that cuts
// names for every view), then Qt elides that to the width.
#pragma once
#include "util/text.h"

#include <QFontMetricsF>
#include <QString>

#include <string_view>

// `s` elided to `width` pixels in `fm`; converts at most what `width` can hold.
QString elidedName(std::string_view s, const QFontMetricsF& fm, double width);
