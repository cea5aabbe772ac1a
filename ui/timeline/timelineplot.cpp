// The timeline widget: it holds the chart, the data, the input and the order in which a change
// is sampled, laid out and drawn (one full replot per data change; the cursor layer alone per
// cursor step). What is drawn over the curves lives in the overlay classes; the rest stays here,
// a little over 400 lines, because the replot order is what keeps the pixels the same.
#include "timeline/timelineplot.h"

#include "timeline/bandgraphs.h"
#include "timeline/comparecurves.h"
#include "timeline/cursoroverlay.h"
#include "timeline/devicememoryline.h"
#include "timeline/downsample.h"
#include "timeline/graphpoints.h"
#include "timeline/hovertext.h"
#include "timeline/lowerboundline.h"
#include "timeline/peakmark.h"
#include "timeline/qcp.h"
#include "timeline/sectionmarkers.h"
#include "timeline/timelineaxes.h"
#include "timeline/timelinekeys.h"
#include "timeline/timelinelegend.h"
#include "util/colors.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>

using timeline::legendName;

namespace {
constexpr double kPeakGap = 8; // pixels between the peak's dot and its label
} // namespace

TimelinePlot::TimelinePlot(QWidget* parent) : QWidget(parent), chart_(new QCustomPlot(this)) {
    // The chart fills this widget, from the start: a top-level one is 640x480 until resized.
    chart_->setGeometry(rect());
    chart_->setViewport(chart_->rect());
    setFocusPolicy(Qt::StrongFocus);
    chart_->setFocusPolicy(Qt::NoFocus); // clicks focus this widget, which takes the keys
    chart_->setMouseTracking(true);
    TimelineAxes::setup(chart_);

    // Creation order is drawing order within a layer.
    curve_ = chart_->addGraph();
    curve_->setLineStyle(QCPGraph::lsStepLeft);
    curve_->setAdaptiveSampling(false); // we already reduce to a few points per pixel
    profileName_ = tr("original order");
    curve_->setName(profileName_);
    overlayCurve_ = chart_->addGraph();
    overlayCurve_->setLineStyle(QCPGraph::lsStepLeft);
    overlayCurve_->setAdaptiveSampling(false);
    overlayCurve_->setName(tr("edited order"));
    compare_ = std::make_unique<CompareCurves>(chart_);
    bound_ = std::make_unique<LowerBoundLine>(chart_);
    device_ = std::make_unique<DeviceMemoryLine>(chart_);
    legend_ = std::make_unique<TimelineLegend>(chart_);

    // What follows the mouse gets a buffered layer of its own, replotted alone: a hover step
    // redraws the cursor, not the curves and bands. The peak and section marks lie on a layer
    // above it.
    cursorOverlay_ = std::make_unique<CursorOverlay>(chart_);
    peak_ = std::make_unique<PeakMark>(chart_, 9);
    editedPeak_ = std::make_unique<PeakMark>(chart_, 9);
    emptyLabel_ = new QCPItemText(chart_);
    emptyLabel_->position->setType(QCPItemPosition::ptAxisRectRatio);
    emptyLabel_->position->setCoords(0.5, 0.5);
    emptyLabel_->setText(tr("No graph loaded"));
    chart_->addLayer(QStringLiteral("marks"), cursorOverlay_->layer(), QCustomPlot::limAbove);
    peak_->setLayer(QStringLiteral("marks"));
    editedPeak_->setLayer(QStringLiteral("marks"));
    emptyLabel_->setLayer(QStringLiteral("marks"));
    sections_ = std::make_unique<SectionMarkers>(chart_, QStringLiteral("marks"));
    bands_ = std::make_unique<BandGraphs>(chart_);

    connect(chart_, &QCustomPlot::mouseMove, this, &TimelinePlot::onMouseMove);
    connect(chart_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) { pressPos_ = e->pos(); });
    connect(chart_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* e) {
        // A click, not the end of a drag along x.
        if (e->button() == Qt::LeftButton && !profile_.empty() && chart_->axisRect()->rect().contains(e->pos()) &&
            (e->pos() - pressPos_).manhattanLength() < 4)
            emit stepActivated(stepAtPixel(e->position().x()));
    });
    connect(chart_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &TimelinePlot::onRangeChanged);
    // The labels placed in pixels, again once the replot has laid the chart out: a legend that
    // appears with it narrows the plot after they were placed.
    connect(chart_, &QCustomPlot::afterLayout, this, [this] {
        if (profile_.empty()) return;
        updatePeakItems();
        sections_->layout(peak_->labelBox());
    });
    connect(chart_, &QCustomPlot::afterReplot, this, [this] {
        if (exporting_) return; // the title row of an export moves the plot area for a moment
        const QRect r = chart_->axisRect()->rect();
        if (r.left() != lastLeft_ || r.right() != lastRight_) {
            lastLeft_ = r.left();
            lastRight_ = r.right();
            emit plotAreaChanged(lastLeft_, lastRight_);
        }
    });
    applyPalette();
}

TimelinePlot::~TimelinePlot() = default;

// QCustomPlot's own hints (the plot layout's minimum), through QWidget where they are public.
QSize TimelinePlot::sizeHint() const { return static_cast<const QWidget*>(chart_)->sizeHint(); }
QSize TimelinePlot::minimumSizeHint() const { return static_cast<const QWidget*>(chart_)->minimumSizeHint(); }

void TimelinePlot::replot() {
    if (deferDraw_ > 0) {
        // Laid out as a replot would (later placements read the axis rect), drawn once at the end.
        for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
            chart_->plotLayout()->update(phase);
        return;
    }
    chart_->replot(QCustomPlot::rpQueuedRefresh);
}

void TimelinePlot::applyPalette() {
    applyColours();
    replot();
}

void TimelinePlot::applyColours() {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text), base = pal.color(QPalette::Base);
    TimelineAxes::applyPalette(chart_, base, text);
    const QColor c = colors::curve(pal);
    curve_->setPen(QPen(c, 1.6));
    QColor fill = c;
    fill.setAlphaF(0.18f);
    curve_->setBrush(bands_->empty() ? QBrush(fill) : QBrush(Qt::NoBrush)); // stacked: the bands are the fill
    overlayCurve_->setPen(QPen(colors::edited(pal), 1.6, Qt::SolidLine));
    QColor labelBg = base;
    labelBg.setAlphaF(0.9f);
    cursorOverlay_->applyPalette(colors::cursor(pal), text, labelBg);
    peak_->setColours(colors::peak(pal), labelBg);
    QFont bold = font();
    bold.setBold(true);
    peak_->setLabelFont(bold);
    editedPeak_->setColours(colors::edited(pal), labelBg);
    editedPeak_->setLabelFont(bold);
    emptyLabel_->setColor(colors::mix(base, text, 0.6));
    legend_->applyPalette(base, text);
    sections_->applyPalette(colors::mix(base, text, 0.45), colors::mix(base, text, 0.6));
    // Compare: A in the edited colour, B dashed in the text colour; both stand out over a fill.
    compare_->applyPalette(colors::edited(pal), colors::mix(base, text, 0.85), labelBg);
    bound_->applyPalette(colors::mix(base, text, 0.7), colors::mix(base, text, 0.8), labelBg);
    device_->applyPalette(colors::mix(base, text, 0.8), QColor(0xD5, 0x5E, 0x00), text, labelBg);
    bands_->applyPalette(base, colors::isDark(pal));
}

void TimelinePlot::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) applyPalette();
}

void TimelinePlot::setStepDescriber(StepDescriber describe) { describe_ = std::move(describe); }

bool TimelinePlot::isStacked() const { return !bands_->empty(); }
const std::vector<TimelinePlot::Band>& TimelinePlot::stackedBands() const { return bands_->bands(); }
std::int64_t TimelinePlot::lowerBound() const { return bound_->bytes(); }
std::int64_t TimelinePlot::deviceMemory() const { return device_->bytes(); }

void TimelinePlot::setDeviceMemory(std::int64_t bytes, const QString& name) {
    device_->set(bytes, name);
    resample();
}
bool TimelinePlot::hasComparison() const { return compare_->shown(); }

void TimelinePlot::setProfile(std::vector<std::int64_t> profile, std::size_t peakStep, std::vector<Marker> sections) {
    profile_ = std::move(profile);
    peakStep_ = peakStep;
    overlay_.clear();
    // Bands, comparison and bound belong to the previous profile.
    bands_->set({}, 0);
    curve_->setName(profileName_);
    compare_->set({}, {});
    bound_->set(-1);
    legendOnScreen_ = false;
    chart_->legend->setVisible(false);
    sections_->set(std::move(sections));
    cursor_ = -1;
    emptyLabel_->setVisible(profile_.empty());
    cursorOverlay_->hide();
    editedPeak_->hide();
    overlayCurve_->data()->clear();
    // Every step below lays the chart out; only the last one draws it.
    ++deferDraw_;
    applyPalette();
    chart_->xAxis->setRange(-0.5, static_cast<double>(std::max<std::size_t>(profile_.size(), 2)) - 0.5);
    --deferDraw_;
    resample();
}

void TimelinePlot::clearProfile() {
    setProfile({}, 0);
    emptyLabel_->setText(tr("No graph loaded"));
}

void TimelinePlot::setOverlay(std::vector<std::int64_t> profile, std::size_t peakStep, const QString& label) {
    overlay_ = std::move(profile);
    overlayPeakStep_ = peakStep;
    overlayLabel_ = label;
    if (!resampleOverlay()) resample();
}

void TimelinePlot::clearOverlay() {
    overlay_.clear();
    overlayCurve_->data()->clear();
    editedPeak_->hide();
    if (!resampleOverlay()) resample();
}

bool TimelinePlot::resampleOverlay() {
    // The edited curve alone changes: unless the y axis or the legend must change with it, the
    // profile, bands, comparison and section labels keep their points and places.
    if (profile_.empty() || exporting_ || legendOnScreen_ || chart_->yAxis->range().upper != yUpper()) return false;
    if (!overlay_.empty()) {
        const Window w = window();
        downsampleMinMax(overlay_, w.first, w.end, w.buckets, keys_, values_);
        setGraphPoints(overlayCurve_, keys_, values_);
    }
    updatePeakItems();
    updateCursorItems();
    legend_->refreshEntries();
    replot();
    return true;
}

TimelinePlot::Window TimelinePlot::window() const {
    const QCPRange r = chart_->xAxis->range();
    const auto last = static_cast<double>(profile_.size() - 1);
    return {static_cast<std::size_t>(std::clamp(std::floor(r.lower) - 1, 0.0, last)),
            static_cast<std::size_t>(std::clamp(std::ceil(r.upper) + 1, 0.0, last)),
            static_cast<std::size_t>(std::max(chart_->axisRect()->width(), 50))};
}

double TimelinePlot::yUpper() const {
    std::int64_t top = profile_[peakStep_];
    for (int i = 0; i < 2; ++i)
        if (const timeline::Curve& c = compare_->curve(i); !c.profile.empty())
            top = std::max(top, c.profile[c.peakStep]);
    if (bound_->bytes() >= 0) top = std::max(top, bound_->bytes());
    // A capacity far above the peak would flatten the curve: left off the axis (the peak label says it).
    if (device_->bytes() >= 0 && device_->bytes() / 3 <= top) top = std::max(top, device_->bytes());
    if (!overlay_.empty()) top = std::max(top, overlay_[overlayPeakStep_]);
    // Headroom above the peak for its label; small graphs keep their own scale (bytes).
    double upper = std::max<double>(static_cast<double>(top) * 1.22, 8);
    // With section labels (a joined pair, the whole step), enough for the peak's label to sit
    // below their row: above it, it hid the names of the sections it spans. A plot too short for
    // both keeps the usual headroom and the labels give way to the peak's.
    const double h = chart_->axisRect()->height();
    if (const double row = sections_->rowBottom(h); row > 0) {
        const double room = h - row - peak_->labelHeight() - kPeakGap - 2;
        if (room >= 0.5 * h) upper = std::max(upper, static_cast<double>(top) * h / room);
    }
    return upper;
}

QString TimelinePlot::peakText() const { return peak_->text(); }
QString TimelinePlot::cursorText() const {
    return cursor_ >= 0 && !exporting_ && !profile_.empty() ? cursorOverlay_->text() : QString();
}
bool TimelinePlot::cursorBoxVisible() const { return cursorOverlay_->boxVisible(); }

void TimelinePlot::resetZoom() {
    const double n = static_cast<double>(std::max<std::size_t>(profile_.size(), 2));
    chart_->xAxis->setRange(-0.5, n - 0.5);
    resample();
}

void TimelinePlot::setXRange(double lo, double hi) {
    const QCPRange r = chart_->xAxis->range();
    if (std::abs(r.lower - lo) < 1e-9 && std::abs(r.upper - hi) < 1e-9) return;
    chart_->xAxis->setRange(lo, hi);
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
        chart_->xAxis->setRange(lo, hi);
        clamping_ = false;
    }
    resample();
    emit xRangeChanged(lo, hi);
}

void TimelinePlot::resample() {
    if (profile_.empty()) {
        curve_->data()->clear();
        overlayCurve_->data()->clear();
        bands_->clearData();
        compare_->clearData();
        peak_->hide();
        device_->update(false, 0);
        chart_->yAxis->setRange(0, 1024);
        replot();
        return;
    }
    const Window w = window();
    downsampleMinMax(profile_, w.first, w.end, w.buckets, keys_, values_);
    setGraphPoints(curve_, keys_, values_);
    bands_->resample(keys_);
    compare_->resample(w.first, w.end, w.buckets);
    if (!overlay_.empty()) {
        downsampleMinMax(overlay_, w.first, w.end, w.buckets, keys_, values_);
        setGraphPoints(overlayCurve_, keys_, values_);
    }
    chart_->yAxis->setRange(0, yUpper());
    updatePeakItems();
    compare_->updateMarks();
    bound_->update(true);
    device_->update(true, profile_[peakStep_]);
    updateCursorItems();
    sections_->layout(peak_->labelBox());
    refreshLegendOnScreen();
    replot();
}

void TimelinePlot::updatePeakItems() {
    const std::int64_t peak = profile_[peakStep_];
    const QString where = describe_ ? describe_(static_cast<std::int64_t>(peakStep_), false) : QString();
    peak_->place(peakStep_, peak,
                 tr("peak %1 · step %2%3%4")
                     .arg(formatBytes(peak))
                     .arg(peakStep_)
                     .arg(where.isEmpty() ? QString() : QStringLiteral(" · ") % where,
                          device_->bytes() < 0 ? QString() : QStringLiteral(" · ") % fitsText(peak, device_->bytes())),
                 false, kPeakGap);
    // While two orders are compared their own peak labels say it; a third label would cover them.
    peak_->setDotVisible(!hasComparison());
    peak_->setLabelVisible(peak_->labelVisible() && !hasComparison());
    if (!overlay_.empty()) editedPeak_->place(overlayPeakStep_, overlay_[overlayPeakStep_], overlayLabel_, true, 8);
}

std::int64_t TimelinePlot::stepAtPixel(double x) const {
    const double key = chart_->xAxis->pixelToCoord(x);
    return std::clamp<std::int64_t>(std::llround(key), 0, static_cast<std::int64_t>(profile_.size()) - 1);
}

void TimelinePlot::onMouseMove(QMouseEvent* event) {
    if (profile_.empty() || (event->buttons() & Qt::LeftButton)) return;
    if (!chart_->axisRect()->rect().contains(event->pos())) return showCursorBox(false);
    moveCursor(stepAtPixel(event->position().x()), true);
}

void TimelinePlot::setCursorStep(std::int64_t step) {
    // From another view (a selected node, the peak a file opens on): the line, not the box,
    // which would stay over the curves with nobody pointing at them.
    if (profile_.empty() ||
        std::clamp<std::int64_t>(step, 0, static_cast<std::int64_t>(profile_.size()) - 1) == cursor_)
        return;
    moveCursor(step, false);
}

void TimelinePlot::moveCursor(std::int64_t step, bool box) {
    if (profile_.empty()) return;
    step = std::clamp<std::int64_t>(step, 0, static_cast<std::int64_t>(profile_.size()) - 1);
    if (step == cursor_) return showCursorBox(box);
    cursor_ = step;
    cursorBox_ = box;
    updateCursorItems();
    cursorOverlay_->replot();
    emit cursorMoved(step);
}

void TimelinePlot::showCursorBox(bool on) {
    if (on == cursorBox_) return;
    cursorBox_ = on;
    updateCursorItems();
    cursorOverlay_->replot();
}

void TimelinePlot::leaveEvent(QEvent* event) {
    QWidget::leaveEvent(event);
    showCursorBox(false);
}

void TimelinePlot::focusOutEvent(QFocusEvent* event) {
    QWidget::focusOutEvent(event);
    if (!underMouse()) showCursorBox(false); // the keys' box goes with the keys
}

void TimelinePlot::refreshCursorText() {
    updateCursorItems();
    cursorOverlay_->replot();
}

void TimelinePlot::refreshUnits() {
    // resample places every label again and replots, which asks the y axis's ticker anew.
    resample();
}

void TimelinePlot::updateCursorItems() {
    if (cursor_ < 0 || profile_.empty() || exporting_) {
        cursorOverlay_->hide();
        return;
    }
    const int lines = chart_->axisRect()->height() * 55 / 100 / cursorOverlay_->lineSpacing();
    const QString text = hoverText({profile_, overlay_, describe_, *compare_, *bands_}, cursor_, lines);
    cursorOverlay_->show(static_cast<double>(cursor_), text, cursorBox_);
}

void TimelinePlot::keyPressEvent(QKeyEvent* event) {
    if (profile_.empty()) return QWidget::keyPressEvent(event);
    if (event->key() == Qt::Key_0 || event->key() == Qt::Key_R) return resetZoom();
    const auto page = std::max<std::int64_t>(1, static_cast<std::int64_t>(chart_->xAxis->range().size() / 10));
    const std::optional<std::int64_t> to =
        cursorStepForKey(event->key(), event->modifiers(), std::max<std::int64_t>(cursor_, 0),
                         static_cast<std::int64_t>(profile_.size()), page, static_cast<std::int64_t>(peakStep_));
    if (!to) return QWidget::keyPressEvent(event);
    moveCursor(*to, true); // walking step by step: the box says where
    emit steppedByKey(cursor_);
    // Keep the cursor in view when stepping past an edge.
    const QCPRange r = chart_->xAxis->range();
    if (static_cast<double>(cursor_) < r.lower)
        setXRange(static_cast<double>(cursor_) - 0.5, static_cast<double>(cursor_) - 0.5 + r.size());
    if (static_cast<double>(cursor_) > r.upper)
        setXRange(static_cast<double>(cursor_) + 0.5 - r.size(), static_cast<double>(cursor_) + 0.5);
}

void TimelinePlot::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    // The chart follows, laid out for its new size before the resample: a visible chart does it
    // in its own resize event, right here; a hidden one would only when shown.
    chart_->setGeometry(rect());
    if (chart_->viewport() != chart_->rect()) {
        chart_->setViewport(chart_->rect());
        ++deferDraw_;
        replot();
        --deferDraw_;
    }
    resample();
}

void TimelinePlot::setTitle(const QString& title) { title_ = title; }

QString TimelinePlot::exportTitle() const { return title_.isEmpty() ? tr("Memory timeline") : elided(title_); }

void TimelinePlot::setExportMode(bool on) {
    if (on == exporting_) return;
    exporting_ = on;
    if (on) {
        // What a reader of the file needs (title, legend), and not what only the mouse meant
        // (the hover cursor and its box).
        chart_->resize(size()); // the image has the widget's size, shown or not
        cursorOverlay_->hide();
        legend_->showTitle(exportTitle(), QFont(font().family(), font().pointSize() + 2, QFont::Bold),
                           palette().color(QPalette::Text));
        refreshLegendOnScreen();
    } else {
        legend_->hideTitle();
        refreshLegendOnScreen();
        updateCursorItems();
    }
    chart_->replot(QCustomPlot::rpImmediateRefresh);
}

void TimelinePlot::setStackedBands(std::vector<Band> bands) {
    bands_->set(std::move(bands), profile_.size());
    // Over the bands the curve is their sum.
    curve_->setName(bands_->empty() ? profileName_ : tr("total"));
    legendOnScreen_ = !bands_->empty() || hasComparison();
    refreshLegendOnScreen();
    ++deferDraw_;
    applyPalette();
    --deferDraw_;
    resample();
}

void TimelinePlot::refreshLegendOnScreen() { legend_->refresh(legendOnScreen_ || exporting_); }

void TimelinePlot::setLowerBound(std::int64_t bytes) {
    bound_->set(bytes);
    resample();
}

void TimelinePlot::setComparison(Curve a, Curve b) {
    compare_->set(std::move(a), std::move(b));
    legendOnScreen_ = !bands_->empty() || hasComparison();
    resample();
    refreshLegendOnScreen();
}

void TimelinePlot::clearComparison() { setComparison({}, {}); }

void TimelinePlot::setCurveNames(const QString& profile, const QString& overlay) {
    profileName_ = legendName(profile);
    curve_->setName(bands_->empty() ? profileName_ : tr("total"));
    overlayCurve_->setName(legendName(overlay));
    refreshLegendOnScreen();
}
