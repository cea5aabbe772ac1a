#include "timeline/timelineplot.h"

#include "timeline/bytesticker.h"
#include "timeline/downsample.h"
#include "timeline/stepticker.h"
#include "util/colors.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>

namespace {
bool isDark(const QPalette& pal) { return colors::isDark(pal); }
// Legend entries stay short: a long schedule or module name is cut in the middle.
QString legendName(const QString& name) {
    constexpr qsizetype kMax = 36;
    return name.size() <= kMax ? name : name.left(kMax / 2 - 1) % QStringLiteral("…") % name.right(kMax / 2 - 1);
}
} // namespace

TimelinePlot::TimelinePlot(QWidget* parent) : QCustomPlot(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    axisRect()->setRangeDrag(Qt::Horizontal);
    axisRect()->setRangeZoom(Qt::Horizontal);
    axisRect()->setRangeZoomFactor(0.8, 1.0);
    setNoAntialiasingOnDrag(true);
    yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new BytesTicker));
    yAxis->ticker()->setTickCount(4);
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new StepTicker));
    xAxis->ticker()->setTickCount(8);
    xAxis->setLabel(tr("profile step"));
    yAxis->grid()->setSubGridVisible(false);

    curve_ = addGraph();
    curve_->setLineStyle(QCPGraph::lsStepLeft);
    curve_->setAdaptiveSampling(false); // we already reduce to a few points per pixel
    profileName_ = tr("original order");
    curve_->setName(profileName_);
    overlayCurve_ = addGraph();
    overlayCurve_->setLineStyle(QCPGraph::lsStepLeft);
    overlayCurve_->setAdaptiveSampling(false);
    overlayCurve_->setName(tr("edited order"));
    for (int i = 0; i < 2; ++i) {
        compareGraphs_[i] = addGraph();
        compareGraphs_[i]->setLineStyle(QCPGraph::lsStepLeft);
        compareGraphs_[i]->setAdaptiveSampling(false);
        compareDots_[i] = new QCPItemTracer(this);
        compareDots_[i]->setStyle(QCPItemTracer::tsCircle);
        compareDots_[i]->setSize(8);
        compareDots_[i]->setVisible(false);
        compareLabels_[i] = new QCPItemText(this);
        compareLabels_[i]->setPadding(QMargins(6, 2, 6, 2));
        compareLabels_[i]->setVisible(false);
    }
    boundLine_ = new QCPItemStraightLine(this);
    boundLine_->setVisible(false);
    boundLabel_ = new QCPItemText(this);
    boundLabel_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    boundLabel_->position->setTypeY(QCPItemPosition::ptPlotCoords);
    boundLabel_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    boundLabel_->setPadding(QMargins(4, 1, 4, 1));
    boundLabel_->setVisible(false);
    legend->setVisible(false);
    legend->setIconSize(18, 10);
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);

    cursorLine_ = new QCPItemStraightLine(this);
    cursorLabel_ = new QCPItemText(this);
    cursorLabel_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    cursorLabel_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    cursorLabel_->setPadding(QMargins(6, 3, 6, 3));
    peakDot_ = new QCPItemTracer(this);
    peakDot_->setStyle(QCPItemTracer::tsCircle);
    peakDot_->setSize(9);
    peakLabel_ = new QCPItemText(this);
    peakLabel_->setPadding(QMargins(6, 2, 6, 2));
    editedDot_ = new QCPItemTracer(this);
    editedDot_->setStyle(QCPItemTracer::tsCircle);
    editedDot_->setSize(9);
    editedLabel_ = new QCPItemText(this);
    editedLabel_->setPadding(QMargins(6, 2, 6, 2));
    emptyLabel_ = new QCPItemText(this);
    emptyLabel_->position->setType(QCPItemPosition::ptAxisRectRatio);
    emptyLabel_->position->setCoords(0.5, 0.5);
    emptyLabel_->setText(tr("No graph loaded"));
    for (QCPAbstractItem* item :
         {static_cast<QCPAbstractItem*>(cursorLine_), static_cast<QCPAbstractItem*>(cursorLabel_),
          static_cast<QCPAbstractItem*>(peakDot_), static_cast<QCPAbstractItem*>(peakLabel_),
          static_cast<QCPAbstractItem*>(editedDot_), static_cast<QCPAbstractItem*>(editedLabel_)})
        item->setVisible(false);
    // What follows the mouse gets a buffered layer of its own, replotted alone: a hover step
    // redraws the cursor, not the curves and bands. The marks drawn over the cursor until now
    // (peaks, sections) move to a layer above it, so the stacking stays as it was.
    addLayer(QStringLiteral("cursor"), layer(QStringLiteral("main")), limAbove);
    cursorLayer_ = layer(QStringLiteral("cursor"));
    cursorLayer_->setMode(QCPLayer::lmBuffered);
    addLayer(QStringLiteral("marks"), cursorLayer_, limAbove);
    cursorLine_->setLayer(cursorLayer_);
    cursorLabel_->setLayer(cursorLayer_);
    for (QCPAbstractItem* item :
         {static_cast<QCPAbstractItem*>(peakDot_), static_cast<QCPAbstractItem*>(peakLabel_),
          static_cast<QCPAbstractItem*>(editedDot_), static_cast<QCPAbstractItem*>(editedLabel_),
          static_cast<QCPAbstractItem*>(emptyLabel_)})
        item->setLayer(QStringLiteral("marks"));

    connect(this, &QCustomPlot::mouseMove, this, &TimelinePlot::onMouseMove);
    connect(this, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) { pressPos_ = e->pos(); });
    connect(this, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        // A click, not the end of a drag along x.
        if (e->button() == Qt::LeftButton && !profile_.empty() && axisRect()->rect().contains(e->pos()) &&
            (e->pos() - pressPos_).manhattanLength() < 4)
            emit stepActivated(stepAtPixel(e->position().x()));
    });
    connect(xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &TimelinePlot::onRangeChanged);
    connect(this, &QCustomPlot::afterReplot, this, [this] {
        if (exporting_) return; // the title row of an export moves the plot area for a moment
        const QRect r = axisRect()->rect();
        if (r.left() != lastLeft_ || r.right() != lastRight_) {
            lastLeft_ = r.left();
            lastRight_ = r.right();
            emit plotAreaChanged(lastLeft_, lastRight_);
        }
    });
    applyPalette();
}

void TimelinePlot::applyPalette() {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text), base = pal.color(QPalette::Base);
    setBackground(base);
    for (QCPAxis* axis : {xAxis, yAxis}) {
        axis->setBasePen(QPen(colors::mix(base, text, 0.5)));
        axis->setTickPen(QPen(colors::mix(base, text, 0.5)));
        axis->setSubTickPen(QPen(colors::mix(base, text, 0.3)));
        axis->setTickLabelColor(text);
        axis->setLabelColor(colors::mix(base, text, 0.75));
        axis->grid()->setPen(QPen(colors::mix(base, text, 0.12), 0, Qt::SolidLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    const QColor c = colors::curve(pal);
    curve_->setPen(QPen(c, 1.6));
    QColor fill = c;
    fill.setAlphaF(0.18f);
    curve_->setBrush(bands_.empty() ? QBrush(fill) : QBrush(Qt::NoBrush)); // stacked: the bands are the fill
    overlayCurve_->setPen(QPen(colors::edited(pal), 1.6, Qt::SolidLine));
    cursorLine_->setPen(QPen(colors::cursor(pal), 1, Qt::DashLine));
    QColor labelBg = base;
    labelBg.setAlphaF(0.9f);
    for (QCPItemText* t : {cursorLabel_, peakLabel_, editedLabel_, compareLabels_[0], compareLabels_[1], boundLabel_}) {
        t->setBrush(labelBg);
        t->setColor(text);
    }
    cursorLabel_->setPen(QPen(colors::cursor(pal)));
    peakDot_->setPen(QPen(colors::peak(pal), 2));
    peakDot_->setBrush(colors::peak(pal));
    peakLabel_->setPen(QPen(colors::peak(pal)));
    peakLabel_->setColor(colors::peak(pal));
    QFont bold = font();
    bold.setBold(true);
    peakLabel_->setFont(bold);
    editedDot_->setPen(QPen(colors::edited(pal), 2));
    editedDot_->setBrush(colors::edited(pal));
    editedLabel_->setPen(QPen(colors::edited(pal)));
    editedLabel_->setColor(colors::edited(pal));
    editedLabel_->setFont(bold);
    emptyLabel_->setColor(colors::mix(base, text, 0.6));
    QColor legendBg = base;
    legendBg.setAlphaF(0.85f);
    legend->setBrush(legendBg);
    legend->setBorderPen(QPen(colors::mix(base, text, 0.3)));
    legend->setTextColor(text);
    for (QCPItemStraightLine* l : sectionLines_) l->setPen(QPen(colors::mix(base, text, 0.45), 1, Qt::DotLine));
    for (QCPItemText* t : sectionLabels_) t->setColor(colors::mix(base, text, 0.6));
    // Compare: A in the edited colour, B dashed in the text colour; both stand out over a fill.
    const QColor compareColours[2] = {colors::edited(pal), colors::mix(base, text, 0.85)};
    for (int i = 0; i < 2; ++i) {
        compareGraphs_[i]->setPen(QPen(compareColours[i], 1.8, i == 0 ? Qt::SolidLine : Qt::DashLine));
        compareDots_[i]->setPen(QPen(compareColours[i], 2));
        compareDots_[i]->setBrush(compareColours[i]);
        compareLabels_[i]->setColor(compareColours[i]);
        compareLabels_[i]->setPen(QPen(compareColours[i]));
    }
    boundLine_->setPen(QPen(colors::mix(base, text, 0.7), 1.2, Qt::DashDotLine));
    boundLabel_->setColor(colors::mix(base, text, 0.8));
    for (std::size_t i = 0; i < bandGraphs_.size(); ++i) {
        // Top band first: graph i draws band (n - 1 - i). Opaque fills (the band's colour
        // softened towards the background) so lower bands paint over the upper ones' fill.
        const QColor colour = bands_[bands_.size() - 1 - i].colour;
        bandGraphs_[i]->setPen(QPen(colour.darker(isDark(pal) ? 80 : 115), 1));
        bandGraphs_[i]->setBrush(colors::mix(base, colour, 0.7));
    }
    replot(rpQueuedRefresh);
}

void TimelinePlot::changeEvent(QEvent* event) {
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) applyPalette();
}

void TimelinePlot::setStepDescriber(StepDescriber describe) { describe_ = std::move(describe); }

void TimelinePlot::setProfile(std::vector<std::int64_t> profile, std::size_t peakStep, std::vector<Marker> sections) {
    profile_ = std::move(profile);
    peakStep_ = peakStep;
    overlay_.clear();
    // Bands, comparison and bound belong to the previous profile.
    bands_.clear();
    cumulative_.clear();
    rebuildBandGraphs();
    curve_->setName(profileName_);
    compare_[0] = {};
    compare_[1] = {};
    lowerBound_ = -1;
    legendOnScreen_ = false;
    legend->setVisible(false);
    for (QCPItemStraightLine* l : sectionLines_) removeItem(l);
    for (QCPItemText* t : sectionLabels_) removeItem(t);
    sectionLines_.clear();
    sectionLabels_.clear();
    sections_ = std::move(sections);
    for (const Marker& m : sections_) {
        auto* line = new QCPItemStraightLine(this);
        line->point1->setCoords(static_cast<double>(m.step) - 0.5, 0);
        line->point2->setCoords(static_cast<double>(m.step) - 0.5, 1);
        line->setLayer(QStringLiteral("marks"));
        sectionLines_.push_back(line);
        auto* label = new QCPItemText(this);
        label->setLayer(QStringLiteral("marks"));
        // Placed in pixels by layoutSections(): kept inside its own section's visible part.
        label->position->setTypeX(QCPItemPosition::ptAbsolute);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setCoords(0, 0.02);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->setText(m.label);
        label->setPadding(QMargins(4, 0, 4, 2));
        sectionLabels_.push_back(label);
    }
    cursor_ = -1;
    emptyLabel_->setVisible(profile_.empty());
    cursorLine_->setVisible(false);
    cursorLabel_->setVisible(false);
    editedDot_->setVisible(false);
    editedLabel_->setVisible(false);
    overlayCurve_->data()->clear();
    applyPalette();
    resetZoom();
}

void TimelinePlot::clearProfile() {
    setProfile({}, 0);
    emptyLabel_->setText(tr("No graph loaded"));
}

void TimelinePlot::setOverlay(std::vector<std::int64_t> profile, std::size_t peakStep, const QString& label) {
    overlay_ = std::move(profile);
    overlayPeakStep_ = peakStep;
    overlayLabel_ = label;
    resample();
}

void TimelinePlot::clearOverlay() {
    overlay_.clear();
    overlayCurve_->data()->clear();
    editedDot_->setVisible(false);
    editedLabel_->setVisible(false);
    resample();
}

QString TimelinePlot::peakText() const { return peakLabel_->text(); }
QString TimelinePlot::cursorText() const { return cursorLabel_->visible() ? cursorLabel_->text() : QString(); }

void TimelinePlot::resetZoom() {
    const double n = static_cast<double>(std::max<std::size_t>(profile_.size(), 2));
    xAxis->setRange(-0.5, n - 0.5);
    resample();
}

void TimelinePlot::setXRange(double lo, double hi) {
    if (std::abs(xAxis->range().lower - lo) < 1e-9 && std::abs(xAxis->range().upper - hi) < 1e-9) return;
    xAxis->setRange(lo, hi);
}

void TimelinePlot::onRangeChanged(const QCPRange& range) {
    if (clamping_) return;
    // Keep the view on the data and at least a few steps wide.
    const double n = static_cast<double>(std::max<std::size_t>(profile_.size(), 2));
    const double minLo = -0.5, maxHi = n - 0.5;
    double lo = range.lower, hi = range.upper;
    double width = std::clamp(hi - lo, std::min(8.0, maxHi - minLo), maxHi - minLo);
    if (lo < minLo) lo = minLo;
    if (lo + width > maxHi) lo = maxHi - width;
    hi = lo + width;
    if (lo != range.lower || hi != range.upper) {
        clamping_ = true;
        xAxis->setRange(lo, hi);
        clamping_ = false;
    }
    resample();
    emit xRangeChanged(lo, hi);
}

void TimelinePlot::resample() {
    if (profile_.empty()) {
        curve_->data()->clear();
        overlayCurve_->data()->clear();
        for (QCPGraph* g : bandGraphs_) g->data()->clear();
        for (QCPGraph* g : compareGraphs_) g->data()->clear();
        peakDot_->setVisible(false);
        peakLabel_->setVisible(false);
        yAxis->setRange(0, 1024);
        replot(rpQueuedRefresh);
        return;
    }
    const QCPRange r = xAxis->range();
    const auto last = static_cast<double>(profile_.size() - 1);
    const auto first = static_cast<std::size_t>(std::clamp(std::floor(r.lower) - 1, 0.0, last));
    const auto end = static_cast<std::size_t>(std::clamp(std::ceil(r.upper) + 1, 0.0, last));
    const auto buckets = static_cast<std::size_t>(std::max(axisRect()->width(), 50));
    QVector<double> keys, values;
    downsampleMinMax(profile_, first, end, buckets, keys, values);
    curve_->setData(keys, values, true);
    // Bands at the total's points: the drawn bands add up to the drawn total.
    for (std::size_t i = 0; i < bandGraphs_.size(); ++i) {
        QVector<double> v;
        sampleAt(cumulative_[cumulative_.size() - 1 - i], keys, v);
        bandGraphs_[i]->setData(keys, v, true);
    }
    std::int64_t top = profile_[peakStep_];
    for (int i = 0; i < 2; ++i) {
        if (compare_[i].profile.empty()) {
            compareGraphs_[i]->data()->clear();
            continue;
        }
        QVector<double> k, v;
        downsampleMinMax(compare_[i].profile, first, end, buckets, k, v);
        compareGraphs_[i]->setData(k, v, true);
        top = std::max(top, compare_[i].profile[compare_[i].peakStep]);
    }
    if (lowerBound_ >= 0) top = std::max(top, lowerBound_);
    if (!overlay_.empty()) {
        downsampleMinMax(overlay_, first, end, buckets, keys, values);
        overlayCurve_->setData(keys, values, true);
        top = std::max(top, overlay_[overlayPeakStep_]);
    }
    // Headroom above the peak for its label; small graphs keep their own scale (bytes).
    yAxis->setRange(0, std::max<double>(static_cast<double>(top) * 1.22, 8));
    updatePeakItems();
    updateCompareItems();
    updateLowerBoundItems();
    updateCursorItems();
    layoutSections();
    refreshLegendOnScreen();
    replot(rpQueuedRefresh);
}

void TimelinePlot::layoutSections() {
    // Each label stays inside the visible part of its own section: pinned to the plot's left edge
    // while its section starts off-screen, elided (or hidden) when the section is narrower than
    // the label, so two labels never overprint at any zoom.
    const QRect area = axisRect()->rect();
    // Nor over the peak's label, which can reach the top row on a short plot: a section label
    // ends before it, or hides when the peak label covers its start.
    QRectF peakBox;
    if (peakLabel_->visible() && !peakLabel_->text().isEmpty()) {
        const QFontMetrics pfm(peakLabel_->font());
        const QMargins pp = peakLabel_->padding();
        peakBox.setSize(QSizeF(pfm.horizontalAdvance(peakLabel_->text()) + pp.left() + pp.right(),
                               pfm.height() + pp.top() + pp.bottom()));
        const QPointF at = peakLabel_->position->pixelPosition();
        const Qt::Alignment a = peakLabel_->positionAlignment();
        if (a & Qt::AlignLeft)
            peakBox.moveLeft(at.x());
        else if (a & Qt::AlignRight)
            peakBox.moveRight(at.x());
        else
            peakBox.moveLeft(at.x() - peakBox.width() / 2);
        if (a & Qt::AlignTop)
            peakBox.moveTop(at.y());
        else
            peakBox.moveBottom(at.y());
    }
    for (std::size_t i = 0; i < sections_.size(); ++i) {
        QCPItemText* label = sectionLabels_[i];
        const double start = xAxis->coordToPixel(static_cast<double>(sections_[i].step) - 0.5);
        const double end = i + 1 < sections_.size()
                               ? xAxis->coordToPixel(static_cast<double>(sections_[i + 1].step) - 0.5)
                               : static_cast<double>(area.right());
        double left = std::max(start, static_cast<double>(area.left()));
        double right = std::min(end, static_cast<double>(area.right()));
        const QMargins pad = label->padding();
        const double top = area.top() + 0.02 * area.height();
        if (!peakBox.isNull() &&
            peakBox.top() < top + QFontMetrics(label->font()).height() + pad.top() + pad.bottom() &&
            peakBox.bottom() > top && peakBox.right() > left && peakBox.left() < right) {
            // Before the peak label if the whole name fits there, else after it if there is more room.
            const double need =
                QFontMetrics(label->font()).horizontalAdvance(sections_[i].label) + pad.left() + pad.right() + 2;
            const double before = peakBox.left() - 4 - left, after = right - (peakBox.right() + 4);
            if (before >= need || before >= after)
                right = std::max(left, peakBox.left() - 4);
            else
                left = peakBox.right() + 4;
        }
        const int room = static_cast<int>(right - left) - pad.left() - pad.right() - 2;
        const QFontMetrics fm(label->font());
        const QString text = room > 0 ? fm.elidedText(sections_[i].label, Qt::ElideRight, room) : QString();
        const bool fits = !text.isEmpty() && text != QStringLiteral("…") && fm.horizontalAdvance(text) <= room;
        label->setText(text);
        label->setVisible(fits);
        label->position->setCoords(left + 1, 0.02);
    }
}

void TimelinePlot::updatePeakItems() {
    const QCPRange r = xAxis->range();
    auto place = [&](QCPItemTracer* dot, QCPItemText* label, std::size_t step, std::int64_t bytes, const QString& text,
                     bool below) {
        dot->position->setCoords(static_cast<double>(step), static_cast<double>(bytes));
        dot->setVisible(true);
        label->setText(text);
        label->position->setCoords(static_cast<double>(step), static_cast<double>(bytes));
        const double rel = (static_cast<double>(step) - r.lower) / std::max(r.size(), 1.0);
        const Qt::Alignment h = rel < 0.3 ? Qt::AlignLeft : rel > 0.7 ? Qt::AlignRight : Qt::AlignHCenter;
        label->setPositionAlignment(h | (below ? Qt::AlignTop : Qt::AlignBottom));
        // Zoomed away from the peak: no label cut off at the plot's edge.
        label->setVisible(static_cast<double>(step) >= r.lower && static_cast<double>(step) <= r.upper);
    };
    const std::int64_t peak = profile_[peakStep_];
    const QString where = describe_ ? describe_(static_cast<std::int64_t>(peakStep_), false) : QString();
    place(peakDot_, peakLabel_, peakStep_, peak,
          tr("peak %1 · step %2%3")
              .arg(formatBytes(peak))
              .arg(peakStep_)
              .arg(where.isEmpty() ? QString() : QStringLiteral(" · ") % where),
          false);
    peakLabel_->position->setPixelPosition(peakLabel_->position->pixelPosition() + QPointF(0, -8));
    // While two orders are compared their own peak labels say it; a third label would cover them.
    peakDot_->setVisible(!hasComparison());
    peakLabel_->setVisible(peakLabel_->visible() && !hasComparison());
    if (!overlay_.empty()) {
        const std::int64_t edited = overlay_[overlayPeakStep_];
        // The edited label sits below its dot unless that would cover the original's peak label.
        place(editedDot_, editedLabel_, overlayPeakStep_, edited, overlayLabel_, edited >= peak || true);
        editedLabel_->position->setPixelPosition(editedLabel_->position->pixelPosition() + QPointF(0, 8));
    }
}

std::int64_t TimelinePlot::stepAtPixel(double x) const {
    const double key = xAxis->pixelToCoord(x);
    return std::clamp<std::int64_t>(std::llround(key), 0, static_cast<std::int64_t>(profile_.size()) - 1);
}

void TimelinePlot::onMouseMove(QMouseEvent* event) {
    if (profile_.empty() || (event->buttons() & Qt::LeftButton)) return;
    if (!axisRect()->rect().contains(event->pos())) return;
    setCursorStep(stepAtPixel(event->position().x()));
}

void TimelinePlot::leaveEvent(QEvent* event) { QCustomPlot::leaveEvent(event); }

void TimelinePlot::setCursorStep(std::int64_t step) {
    if (profile_.empty()) return;
    step = std::clamp<std::int64_t>(step, 0, static_cast<std::int64_t>(profile_.size()) - 1);
    if (step == cursor_) return;
    cursor_ = step;
    updateCursorItems();
    replotCursor();
    emit cursorMoved(step);
}

void TimelinePlot::replotCursor() {
    // QCPLayer::replot falls back to a full replot while the buffers are not set up (first show, resize).
    cursorLayer_->replot();
}

void TimelinePlot::updateCursorItems() {
    if (cursor_ < 0 || profile_.empty() || exporting_) {
        cursorLine_->setVisible(false);
        cursorLabel_->setVisible(false);
        return;
    }
    const auto x = static_cast<double>(cursor_);
    cursorLine_->point1->setCoords(x, 0);
    cursorLine_->point2->setCoords(x, 1);
    cursorLine_->setVisible(true);
    // With an overlay the same step is another node in each order: name both.
    const bool both = !overlay_.empty() && static_cast<std::size_t>(cursor_) < overlay_.size();
    const auto line = [&](const QString& bytes, bool edited) {
        const QString node = describe_ ? describe_(cursor_, edited) : QString();
        return node.isEmpty() ? bytes : bytes % QStringLiteral(" · ") % node;
    };
    QString text = tr("step %1").arg(cursor_);
    text += QStringLiteral("\n") % line(formatBytes(profile_[static_cast<std::size_t>(cursor_)]), false);
    if (both)
        text += QStringLiteral("\n") %
                line(tr("edited %1").arg(formatBytes(overlay_[static_cast<std::size_t>(cursor_)])), true);
    for (const Curve& c : compare_)
        if (static_cast<std::size_t>(cursor_) < c.profile.size())
            text += QStringLiteral("\n") % c.name % QStringLiteral(": ") %
                    formatBytes(c.profile[static_cast<std::size_t>(cursor_)]);
    if (!bands_.empty()) {
        // The largest bands at this step, so the box names what holds the memory.
        std::vector<std::pair<std::int64_t, std::size_t>> held;
        for (std::size_t b = 0; b < bands_.size(); ++b)
            if (const std::int64_t v = bands_[b].values[static_cast<std::size_t>(cursor_)]; v > 0)
                held.emplace_back(v, b);
        std::sort(held.begin(), held.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
        // At most five lines (four and "N more"; a fifth band takes the line "1 more" would), and
        // fewer on a short plot, so that the box covers at most about half of it.
        const int lineHeight = std::max(1, QFontMetrics(cursorLabel_->font()).lineSpacing());
        const auto header = static_cast<int>(text.count(QLatin1Char('\n'))) + 1;
        // The largest band and "N more" at least.
        const int room = axisRect()->height() * 55 / 100 / lineHeight - header;
        const auto lines = static_cast<std::size_t>(std::clamp(room, 2, 5));
        const std::size_t shown = held.size() <= lines ? held.size() : lines - 1;
        for (std::size_t i = 0; i < shown; ++i)
            text +=
                QStringLiteral("\n  ") % bands_[held[i].second].name % QStringLiteral(" ") % formatBytes(held[i].first);
        if (held.size() > shown)
            text += QStringLiteral("\n  ") % tr("%n more", nullptr, static_cast<int>(held.size() - shown));
    }
    cursorLabel_->setText(text);
    const QCPRange r = xAxis->range();
    const bool right = (x - r.lower) / std::max(r.size(), 1.0) > 0.6;
    // At the bottom: the peak label owns the top of the plot.
    cursorLabel_->setPositionAlignment((right ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    cursorLabel_->position->setCoords(x, 0.97);
    cursorLabel_->setVisible(true);
}

void TimelinePlot::keyPressEvent(QKeyEvent* event) {
    if (profile_.empty()) return QCustomPlot::keyPressEvent(event);
    const std::int64_t n = static_cast<std::int64_t>(profile_.size());
    const std::int64_t page = std::max<std::int64_t>(1, static_cast<std::int64_t>(xAxis->range().size() / 10));
    const std::int64_t at = std::max<std::int64_t>(cursor_, 0);
    std::int64_t to = at;
    switch (event->key()) {
    case Qt::Key_Left: to = at - ((event->modifiers() & Qt::ShiftModifier) ? page : 1); break;
    case Qt::Key_Right: to = at + ((event->modifiers() & Qt::ShiftModifier) ? page : 1); break;
    case Qt::Key_PageUp: to = at - page; break;
    case Qt::Key_PageDown: to = at + page; break;
    case Qt::Key_Home: to = 0; break;
    case Qt::Key_End: to = n - 1; break;
    case Qt::Key_P: to = static_cast<std::int64_t>(peakStep_); break;
    case Qt::Key_0:
    case Qt::Key_R: resetZoom(); return;
    default: return QCustomPlot::keyPressEvent(event);
    }
    setCursorStep(to);
    emit steppedByKey(cursor_);
    // Keep the cursor in view when stepping past an edge.
    const QCPRange r = xAxis->range();
    if (static_cast<double>(cursor_) < r.lower)
        setXRange(static_cast<double>(cursor_) - 0.5, static_cast<double>(cursor_) - 0.5 + r.size());
    if (static_cast<double>(cursor_) > r.upper)
        setXRange(static_cast<double>(cursor_) + 0.5 - r.size(), static_cast<double>(cursor_) + 0.5);
}

void TimelinePlot::resizeEvent(QResizeEvent* event) {
    QCustomPlot::resizeEvent(event);
    resample();
}

void TimelinePlot::setTitle(const QString& title) { title_ = title; }

QString TimelinePlot::exportTitle() const { return title_.isEmpty() ? tr("Memory timeline") : title_; }

void TimelinePlot::refreshLegend() {
    // Only curves that are drawn: the legend never names an empty overlay.
    for (int i = 0; i < graphCount(); ++i) {
        QCPGraph* g = graph(i);
        if (g->visible() && !g->data()->isEmpty() && !g->name().isEmpty())
            g->addToLegend();
        else
            g->removeFromLegend();
    }
}

void TimelinePlot::setExportMode(bool on) {
    if (on == exporting_) return;
    exporting_ = on;
    if (on) {
        // What a reader of the file needs (title, legend), and not what only the mouse meant
        // (the hover cursor and its box).
        cursorLine_->setVisible(false);
        cursorLabel_->setVisible(false);
        titleElement_ =
            new QCPTextElement(this, exportTitle(), QFont(font().family(), font().pointSize() + 2, QFont::Bold));
        titleElement_->setTextColor(palette().color(QPalette::Text));
        plotLayout()->insertRow(0);
        plotLayout()->addElement(0, 0, titleElement_);
        refreshLegendOnScreen();
    } else {
        plotLayout()->remove(titleElement_);
        titleElement_ = nullptr;
        plotLayout()->simplify();
        refreshLegendOnScreen();
        updateCursorItems();
    }
    replot(rpImmediateRefresh);
}

void TimelinePlot::setStackedBands(std::vector<Band> bands) {
    bands_ = std::move(bands);
    // Bands must cover the profile; a short one is padded with zeros rather than read past.
    for (Band& b : bands_) b.values.resize(profile_.size(), 0);
    cumulative_.clear();
    cumulative_.reserve(bands_.size());
    for (std::size_t i = 0; i < bands_.size(); ++i) {
        std::vector<std::int64_t> sum = bands_[i].values;
        if (i > 0)
            for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += cumulative_[i - 1][k];
        cumulative_.push_back(std::move(sum));
    }
    rebuildBandGraphs();
    // Over the bands the curve is their sum.
    curve_->setName(bands_.empty() ? profileName_ : tr("total"));
    legendOnScreen_ = !bands_.empty() || hasComparison();
    refreshLegendOnScreen();
    applyPalette();
    resample();
}

void TimelinePlot::rebuildBandGraphs() {
    for (QCPGraph* g : bandGraphs_) removeGraph(g);
    bandGraphs_.clear();
    if (bands_.empty()) return;
    if (!layer(QStringLiteral("bands"))) addLayer(QStringLiteral("bands"), layer(QStringLiteral("main")), limBelow);
    // Top band first: each graph fills down to zero and the next one below paints over it.
    for (std::size_t i = bands_.size(); i-- > 0;) {
        QCPGraph* g = addGraph();
        g->setLayer(QStringLiteral("bands"));
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setAdaptiveSampling(false);
        g->setName(legendName(bands_[i].name));
        bandGraphs_.push_back(g);
    }
}

void TimelinePlot::refreshLegendOnScreen() {
    refreshLegend();
    const bool show = (legendOnScreen_ || exporting_) && legend->itemCount() > 0;
    // Shown, the legend sits in a column right of the plot, at the top (inside the plot it would
    // cover the peak label); hidden, it goes back into the axis rect's inset layout, taking no room.
    if (show && !legendColumn_) {
        axisRect()->insetLayout()->take(legend);
        legendColumn_ = new QCPLayoutGrid;
        int row = 0;
        for (int r = 0; r < plotLayout()->rowCount(); ++r)
            if (plotLayout()->element(r, 0) == axisRect()) row = r;
        plotLayout()->addElement(row, 1, legendColumn_);
        plotLayout()->setColumnStretchFactor(1, 0.001);
        legendColumn_->addElement(0, 0, legend);
        legendColumn_->addElement(1, 0, new QCPLayoutElement(this)); // takes the rest of the height
        legendColumn_->setRowStretchFactor(0, 0.001);
        legendColumn_->setMargins(QMargins(0, 6, 6, 0));
    } else if (!show && legendColumn_) {
        legendColumn_->take(legend);
        plotLayout()->remove(legendColumn_);
        legendColumn_ = nullptr;
        plotLayout()->simplify();
        axisRect()->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    }
    legend->setVisible(show);
}

void TimelinePlot::setLowerBound(std::int64_t bytes) {
    lowerBound_ = bytes;
    resample();
}

void TimelinePlot::updateLowerBoundItems() {
    const bool on = lowerBound_ >= 0 && !profile_.empty();
    boundLine_->setVisible(on);
    boundLabel_->setVisible(on);
    if (!on) return;
    const auto y = static_cast<double>(lowerBound_);
    boundLine_->point1->setCoords(xAxis->range().lower, y);
    boundLine_->point2->setCoords(xAxis->range().upper, y);
    boundLabel_->setText(tr("no order can go below %1").arg(formatBytes(lowerBound_)));
    boundLabel_->position->setCoords(0.99, y);
}

void TimelinePlot::setComparison(Curve a, Curve b) {
    compare_[0] = std::move(a);
    compare_[1] = std::move(b);
    for (int i = 0; i < 2; ++i) {
        if (!compare_[i].profile.empty())
            compare_[i].peakStep = std::min(compare_[i].peakStep, compare_[i].profile.size() - 1);
        compareGraphs_[i]->setName(legendName(compare_[i].name));
    }
    legendOnScreen_ = !bands_.empty() || hasComparison();
    resample();
    refreshLegendOnScreen();
}

void TimelinePlot::clearComparison() { setComparison({}, {}); }

void TimelinePlot::setCurveNames(const QString& profile, const QString& overlay) {
    profileName_ = legendName(profile);
    curve_->setName(bands_.empty() ? profileName_ : tr("total"));
    overlayCurve_->setName(legendName(overlay));
    refreshLegendOnScreen();
}

void TimelinePlot::updateCompareItems() {
    for (int i = 0; i < 2; ++i) {
        const Curve& c = compare_[i];
        const bool on = !c.profile.empty();
        compareDots_[i]->setVisible(on);
        compareLabels_[i]->setVisible(on);
        if (!on) continue;
        const auto x = static_cast<double>(c.peakStep), y = static_cast<double>(c.profile[c.peakStep]);
        compareDots_[i]->position->setCoords(x, y);
        compareLabels_[i]->setText(
            tr("%1 peak %2 · step %3").arg(legendName(c.name), formatBytes(c.profile[c.peakStep])).arg(c.peakStep));
        compareLabels_[i]->position->setCoords(x, y);
        const QCPRange r = xAxis->range();
        const double rel = (x - r.lower) / std::max(r.size(), 1.0);
        const Qt::Alignment h = rel < 0.3 ? Qt::AlignLeft : rel > 0.7 ? Qt::AlignRight : Qt::AlignHCenter;
        // A's label above its dot, B's below, so two peaks at one step stay readable.
        compareLabels_[i]->setPositionAlignment(h | (i == 0 ? Qt::AlignBottom : Qt::AlignTop));
        compareLabels_[i]->position->setPixelPosition(compareLabels_[i]->position->pixelPosition() +
                                                      QPointF(0, i == 0 ? -8 : 8));
    }
}
