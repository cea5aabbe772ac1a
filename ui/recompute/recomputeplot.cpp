#include "recompute/recomputeplot.h"

#include "timeline/bytesticker.h"
#include "util/colors.h"
#include "util/units.h"

#include <algorithm>
#include <cmath>
#include <vector>

using Kind = RecomputePoint::Kind;

RecomputePlot::RecomputePlot(QWidget* parent) : QCustomPlot(parent) {
    setObjectName(QStringLiteral("recomputePlot"));
    // An explicit minimum: the legend's row would otherwise widen the side docks (minimumSizeHint).
    setMinimumSize(240, 200);
    yAxis->setTicker(QSharedPointer<BytesTicker>::create());
    xAxis->setLabel(tr("extra FLOPs (% of budget 1.0)"));
    yAxis->setLabel(tr("pair peak"));
    frontier_ = addGraph();
    frontier_->setName(tr("fxmem frontier"));
    frontier_->setLineStyle(QCPGraph::lsStepLeft);
    budgets_ = addGraph();
    budgets_->setName(tr("PyTorch budgets"));
    budgets_->setLineStyle(QCPGraph::lsNone);
    plan_ = addGraph();
    plan_->setName(tr("plan"));
    plan_->setLineStyle(QCPGraph::lsNone);
    edits_ = addGraph();
    edits_->setName(tr("your edits"));
    edits_->setLineStyle(QCPGraph::lsNone);
    lowest_ = addGraph();
    lowest_->setName(tr("lowest peak"));
    lowest_->setLineStyle(QCPGraph::lsNone);
    current_ = addGraph();
    current_->setName(tr("shown"));
    current_->setLineStyle(QCPGraph::lsNone);
    current_->removeFromLegend();
    limit_ = new QCPItemStraightLine(this);
    limit_->setVisible(false);
    // The legend in a row of its own above the axes: inside, it would hide the low-peak corner.
    legend->setVisible(true);
    axisRect()->insetLayout()->take(legend);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, legend);
    legend->setBorderPen(Qt::NoPen);
    fitLegend();
    plotLayout()->setRowStretchFactor(0, 0.001);
    applyPalette();
    connect(this, &QCustomPlot::afterLayout, this, &RecomputePlot::layoutLabels);
    connect(this, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        if (e->button() != Qt::LeftButton) return;
        if (const int i = pointAt(e->position()); i >= 0) emit pointClicked(i);
    });
}

void RecomputePlot::applyPalette() {
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    setBackground(pal.brush(QPalette::Base));
    for (QCPAxis* a : {xAxis, yAxis}) {
        a->setBasePen(QPen(text));
        a->setTickPen(QPen(text));
        a->setSubTickPen(QPen(text));
        a->setTickLabelColor(text);
        a->setLabelColor(text);
    }
    legend->setBrush(pal.brush(QPalette::Base));
    legend->setTextColor(text);
    const QColor edited = colors::edited(pal), curve = colors::curve(pal), peak = colors::peak(pal);
    frontier_->setPen(QPen(edited, 2));
    frontier_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, edited, 5));
    budgets_->setPen(QPen(curve));
    budgets_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, curve, curve, 8));
    plan_->setPen(QPen(edited));
    plan_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(edited, 2), Qt::NoBrush, 14));
    edits_->setPen(QPen(edited));
    edits_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(edited, 1.5), Qt::NoBrush, 9));
    lowest_->setPen(QPen(peak));
    lowest_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(peak, 2), Qt::NoBrush, 18));
    current_->setPen(QPen(text));
    current_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(text, 1.5), Qt::NoBrush, 14));
    for (QCPItemText* l : labels_) l->setColor(text);
    limit_->setPen(QPen(text, 1, Qt::DashLine));
    replot();
}

void RecomputePlot::place(QCPGraph* graph, const std::vector<int>& which) {
    QVector<double> x, y;
    for (int i : which) {
        const RecomputePoint& p = points_.points[static_cast<std::size_t>(i)];
        x.push_back(points_.percent(p.extraFlops));
        y.push_back(static_cast<double>(p.peak));
    }
    graph->setData(x, y);
}

void RecomputePlot::setPoints(const RecomputePoints& points) {
    points_ = points;
    for (QCPItemText* l : labels_) removeItem(l);
    labels_.clear();
    std::vector<int> budgets, frontier, plan, edits, lowest;
    for (int i = 0; i < static_cast<int>(points_.points.size()); ++i) {
        const RecomputePoint& p = points_.points[static_cast<std::size_t>(i)];
        (p.kind == Kind::Budget     ? budgets
         : p.kind == Kind::Frontier ? frontier
         : p.kind == Kind::Plan     ? plan
                                    : edits)
            .push_back(i);
        if (p.lowest) lowest.push_back(i);
    }
    // Both axes from 0 up, with room for the labels (and the limit when it is near).
    double xmax = std::min(std::max(1.0, limitPercent_), 100.0), ymax = 1;
    for (const RecomputePoint& p : points_.points) {
        xmax = std::max(xmax, points_.percent(p.extraFlops));
        ymax = std::max(ymax, static_cast<double>(p.peak));
    }
    xmax *= 1.12;
    ymax *= 1.15;
    // A label per budget point ("0.6", as Python writes the budget), placed in pixels once the
    // replot has laid the plot out (layoutLabels).
    labelled_ = budgets;
    for (std::size_t k = 0; k < budgets.size(); ++k) {
        auto* label = new QCPItemText(this);
        label->setColor(palette().color(QPalette::WindowText));
        label->setClipToAxisRect(false);
        labels_.push_back(label);
    }
    place(budgets_, budgets);
    place(frontier_, frontier);
    place(plan_, plan);
    place(edits_, edits);
    // "your edits" in the legend once there are some.
    if (edits.empty())
        edits_->removeFromLegend();
    else
        edits_->addToLegend();
    fitLegend();
    place(lowest_, lowest);
    currentIndex_ = -1;
    place(current_, {});
    xAxis->setRange(-xmax * 0.04, xmax);
    yAxis->setRange(0, ymax);
    placeLimit();
    replot();
}

namespace {
// Where a label goes beside its point: right or left of it, above or below.
struct Side {
    Qt::Alignment align;
    QMargins pad;
};
constexpr int kGap = 6, kLift = 3;
const Side kSides[] = {{Qt::AlignLeft | Qt::AlignBottom, QMargins(kGap, 0, 0, kLift)},
                       {Qt::AlignRight | Qt::AlignBottom, QMargins(0, 0, kGap, kLift)},
                       {Qt::AlignLeft | Qt::AlignTop, QMargins(kGap, kLift, 0, 0)},
                       {Qt::AlignRight | Qt::AlignTop, QMargins(0, kLift, kGap, 0)}};

QRectF labelRect(const QFontMetrics& fm, const QString& text, QPointF at, const Side& side) {
    QRectF r(0, 0, fm.horizontalAdvance(text) + side.pad.left() + side.pad.right(),
             fm.height() + side.pad.top() + side.pad.bottom());
    if (side.align & Qt::AlignLeft)
        r.moveLeft(at.x());
    else
        r.moveRight(at.x());
    if (side.align & Qt::AlignBottom)
        r.moveBottom(at.y());
    else
        r.moveTop(at.y());
    return r;
}
} // namespace

void RecomputePlot::layoutLabels() {
    // Each budget's label beside its point, on the first side (right, left, above, below) where
    // it overprints no other label and stays inside the axes; with none free it joins the label it
    // would cover ("0.9, 0.8"), which then moves too. Done in pixels, at the plot's size: a
    // distance in data units gave "0.8, 0.7" over "0.6" in a side dock.
    struct Group {
        std::vector<std::size_t> members; // into labelled_/labels_, the first one anchors it
        int side = 0;
        QRectF box;
    };
    const QFontMetrics fm(font());
    const QRectF bounds = axisRect()->rect(); // off the axes' tick labels and the legend
    std::vector<Group> groups;
    const auto textOf = [&](const Group& g) {
        QStringList names;
        for (std::size_t m : g.members)
            names << QString::fromStdString(budgetText(points_.points[static_cast<std::size_t>(labelled_[m])].budget));
        return names.join(QStringLiteral(", "));
    };
    // The first free side of group `g` (its box set), or false when every side collides.
    const auto settle = [&](Group& g, std::size_t self) {
        const QPointF at = pixelOf(labelled_[g.members.front()]);
        const QString text = textOf(g);
        for (int s = 0; s < 4; ++s) {
            const QRectF box = labelRect(fm, text, at, kSides[s]);
            bool free = bounds.contains(box);
            for (std::size_t o = 0; free && o < groups.size(); ++o)
                free = o == self || groups[o].members.empty() || !groups[o].box.intersects(box);
            if (free) {
                g.side = s;
                g.box = box;
                return true;
            }
        }
        g.side = 0;
        g.box = labelRect(fm, text, at, kSides[0]);
        return false;
    };
    for (std::size_t k = 0; k < labelled_.size(); ++k) {
        groups.push_back({{k}, 0, {}});
        // Join what it collides with until it has a free side (each join moves the joined label).
        std::size_t at = groups.size() - 1;
        while (!settle(groups[at], at)) {
            std::size_t hit = groups.size();
            for (std::size_t o = 0; o < groups.size() && hit == groups.size(); ++o)
                if (o != at && !groups[o].members.empty() && groups[o].box.intersects(groups[at].box)) hit = o;
            if (hit == groups.size()) break; // only off the widget: keep the first side
            groups[hit].members.insert(groups[hit].members.end(), groups[at].members.begin(), groups[at].members.end());
            groups[at].members.clear();
            at = hit;
        }
    }
    for (QCPItemText* l : labels_) l->setVisible(false);
    for (const Group& g : groups) {
        if (g.members.empty()) continue;
        QCPItemText* label = labels_[static_cast<qsizetype>(g.members.front())];
        const RecomputePoint& p = points_.points[static_cast<std::size_t>(labelled_[g.members.front()])];
        label->position->setCoords(points_.percent(p.extraFlops), static_cast<double>(p.peak));
        label->setPositionAlignment(kSides[g.side].align);
        label->setPadding(kSides[g.side].pad);
        label->setFont(font());
        label->setText(textOf(g));
        label->setVisible(true);
    }
}

std::vector<std::pair<QString, QRectF>> RecomputePlot::budgetLabels() const {
    std::vector<std::pair<QString, QRectF>> out;
    for (QCPItemText* l : labels_)
        if (l->visible())
            out.emplace_back(l->text(), QRectF(l->topLeft->pixelPosition(), l->bottomRight->pixelPosition()));
    return out;
}

void RecomputePlot::placeLimit() {
    limit_->setVisible(limitPercent_ >= 0);
    limit_->point1->setCoords(limitPercent_, 0);
    limit_->point2->setCoords(limitPercent_, 1);
}

void RecomputePlot::setLimit(double percent) {
    limitPercent_ = percent < 0 ? -1.0 : percent;
    const int current = currentIndex_;
    setPoints(RecomputePoints(points_)); // the x range may grow to show it
    setCurrent(current);
}

void RecomputePlot::fitLegend() {
    // As many entries a row as fit, at most four: a side dock at laptop width holds two, and a
    // fixed four cut every name ("fxmem fronti", "lowest pea"). Entry i sits in column i % k,
    // and each column is as wide as its widest entry, as the legend's grid lays them out.
    const QFontMetrics fm(legend->font());
    const QMargins m = legend->margins();
    std::vector<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
            widths.push_back(fm.horizontalAdvance(item->plottable()->name()) + legend->iconSize().width() +
                             legend->iconTextPadding() + m.left() + m.right());
    int fit = 1;
    for (int k = 4; k > 1; --k) {
        std::vector<int> column(static_cast<std::size_t>(k), 0);
        for (std::size_t i = 0; i < widths.size(); ++i)
            column[i % column.size()] = std::max(column[i % column.size()], widths[i]);
        int total = 0;
        for (int w : column) total += w;
        if (total <= width()) {
            fit = k;
            break;
        }
    }
    if (legend->wrap() != fit) legend->setWrap(fit);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // lays the entries out again
}

void RecomputePlot::resizeEvent(QResizeEvent* event) {
    fitLegend();
    QCustomPlot::resizeEvent(event);
}

void RecomputePlot::setCurrent(int index) {
    currentIndex_ = index >= 0 && index < static_cast<int>(points_.points.size()) ? index : -1;
    place(current_, currentIndex_ >= 0 ? std::vector<int>{currentIndex_} : std::vector<int>{});
    replot();
}

QPointF RecomputePlot::pixelOf(int index) const {
    const RecomputePoint& p = points_.points.at(static_cast<std::size_t>(index));
    return {xAxis->coordToPixel(points_.percent(p.extraFlops)), yAxis->coordToPixel(static_cast<double>(p.peak))};
}

int RecomputePlot::pointAt(const QPointF& pos) const {
    // The nearest within 8 px; the plan and budgets before frontier points on a tie.
    int best = -1;
    double bestD = 8 * 8 + 1;
    for (int i = 0; i < static_cast<int>(points_.points.size()); ++i) {
        const QPointF d = pixelOf(i) - pos;
        const double dd = d.x() * d.x() + d.y() * d.y() -
                          (points_.points[static_cast<std::size_t>(i)].kind == Kind::Frontier ? 0 : 0.5);
        if (dd < bestD) {
            bestD = dd;
            best = i;
        }
    }
    return best;
}
