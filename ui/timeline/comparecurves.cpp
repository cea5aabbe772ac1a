#include "timeline/comparecurves.h"

#include "timeline/downsample.h"
#include "timeline/graphpoints.h"
#include "util/text.h"
#include "util/units.h"

#include <QStringBuilder>

#include <algorithm>

CompareCurves::CompareCurves(QCustomPlot* plot) {
    for (std::size_t i = 0; i < 2; ++i) {
        graphs_[i] = plot->addGraph();
        graphs_[i]->setLineStyle(QCPGraph::lsStepLeft);
        graphs_[i]->setAdaptiveSampling(false);
        marks_[i] = std::make_unique<PeakMark>(plot, 8);
    }
}

void CompareCurves::set(timeline::Curve a, timeline::Curve b) {
    curves_[0] = std::move(a);
    curves_[1] = std::move(b);
    for (std::size_t i = 0; i < 2; ++i) {
        if (!curves_[i].profile.empty())
            curves_[i].peakStep = std::min(curves_[i].peakStep, curves_[i].profile.size() - 1);
        graphs_[i]->setName(timeline::legendName(curves_[i].name));
    }
}

void CompareCurves::resample(std::size_t first, std::size_t end, std::size_t buckets) {
    QVector<double> k, v;
    for (std::size_t i = 0; i < 2; ++i) {
        if (curves_[i].profile.empty()) {
            graphs_[i]->data()->clear();
            continue;
        }
        downsampleMinMax(curves_[i].profile, first, end, buckets, k, v);
        setGraphPoints(graphs_[i], k, v);
    }
}

void CompareCurves::clearData() {
    for (QCPGraph* g : graphs_) g->data()->clear();
}

void CompareCurves::applyPalette(const QColor& a, const QColor& b, const QColor& labelBackground) {
    const QColor colours[2] = {a, b};
    for (std::size_t i = 0; i < 2; ++i) {
        graphs_[i]->setPen(QPen(colours[i], 1.8, i == 0 ? Qt::SolidLine : Qt::DashLine));
        marks_[i]->setColours(colours[i], labelBackground);
    }
}

void CompareCurves::updateMarks() {
    for (std::size_t i = 0; i < 2; ++i) {
        const timeline::Curve& c = curves_[i];
        if (c.profile.empty()) {
            marks_[i]->hide();
            continue;
        }
        const std::int64_t peak = c.profile[c.peakStep];
        // A's label above its dot, B's below, so two peaks at one step stay readable; shown even
        // when the peak is out of view.
        marks_[i]->place(
            c.peakStep, peak,
            QObject::tr("%1 peak %2 · step %3").arg(timeline::legendName(c.name), formatBytes(peak)).arg(c.peakStep),
            i == 1, 8, false);
    }
}

QString CompareCurves::cursorLines(std::size_t step) const {
    QString text;
    for (const timeline::Curve& c : curves_)
        if (step < c.profile.size())
            text += QStringLiteral("\n") % elided(c.name) % QStringLiteral(": ") % formatBytes(c.profile[step]);
    return text;
}
