#include "timeline/hovertext.h"

#include "timeline/bandgraphs.h"
#include "timeline/comparecurves.h"
#include "util/units.h"

#include <QObject>
#include <QStringBuilder>

#include <algorithm>

QString hoverText(const HoverSources& s, std::int64_t step, int lines) {
    const auto at = static_cast<std::size_t>(step);
    const bool both = !s.overlay.empty() && at < s.overlay.size();
    const auto line = [&](const QString& bytes, bool edited) {
        const QString node = s.describe ? s.describe(step, edited) : QString();
        return node.isEmpty() ? bytes : bytes % QStringLiteral(" · ") % node;
    };
    QString text = QObject::tr("step %1").arg(step);
    text += QStringLiteral("\n") % line(formatBytes(s.profile[at]), false);
    if (both) text += QStringLiteral("\n") % line(QObject::tr("edited %1").arg(formatBytes(s.overlay[at])), true);
    text += s.compare.cursorLines(at);
    if (!s.bands.empty()) {
        // The largest bands, so the box names what holds the memory: at most five lines (four
        // and "N more"; a fifth band takes the line "1 more" would), fewer on a short plot; the
        // largest band and "N more" at least.
        const int header = static_cast<int>(text.count(QLatin1Char('\n'))) + 1;
        text += s.bands.cursorLines(at, static_cast<std::size_t>(std::clamp(lines - header, 2, 5)));
    }
    return text;
}
