#include "timeline/bandgraphs.h"

#include "timeline/downsample.h"
#include "timeline/graphpoints.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <QStringBuilder>

#include <algorithm>

BandGraphs::BandGraphs(QCustomPlot* plot) : plot_(plot) {
    plot->addLayer(QStringLiteral("bands"), plot->layer(QStringLiteral("main")), QCustomPlot::limBelow);
    layer_ = plot->layer(QStringLiteral("bands"));
}

void BandGraphs::set(std::vector<timeline::Band> bands, std::size_t steps) {
    bands_ = std::move(bands);
    // Bands must cover the profile; a short one is padded with zeros rather than read past.
    for (timeline::Band& b : bands_) b.values.resize(steps, 0);
    cumulative_.resize(bands_.size());
    for (std::size_t i = 0; i < bands_.size(); ++i) {
        cumulative_[i] = bands_[i].values;
        if (i > 0)
            for (std::size_t k = 0; k < steps; ++k) cumulative_[i][k] += cumulative_[i - 1][k];
    }
    // Keep as many graphs as there are bands: the first ones are reused (and leave the legend,
    // as new graphs would not be in it yet), extra ones removed from the end, missing ones added.
    while (graphs_.size() > bands_.size()) {
        plot_->removeGraph(graphs_.back());
        graphs_.pop_back();
    }
    for (QCPGraph* g : graphs_) g->removeFromLegend();
    while (graphs_.size() < bands_.size()) {
        QCPGraph* g = plot_->addGraph();
        g->setLayer(layer_);
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setAdaptiveSampling(false);
        graphs_.push_back(g);
    }
    // Top band first: each graph fills down to zero and the next one below paints over it.
    for (std::size_t i = 0; i < graphs_.size(); ++i)
        graphs_[i]->setName(timeline::legendName(bands_[bands_.size() - 1 - i].name));
}

void BandGraphs::resample(const QVector<double>& keys) {
    QVector<double> v;
    for (std::size_t i = 0; i < graphs_.size(); ++i) {
        sampleAt(cumulative_[cumulative_.size() - 1 - i], keys, v);
        setGraphPoints(graphs_[i], keys, v);
    }
}

void BandGraphs::clearData() {
    for (QCPGraph* g : graphs_) g->data()->clear();
}

void BandGraphs::applyPalette(const QColor& base, bool dark) {
    for (std::size_t i = 0; i < graphs_.size(); ++i) {
        // Opaque fills (the band's colour softened towards the background) so lower bands paint
        // over the upper ones' fill.
        const QColor colour = bands_[bands_.size() - 1 - i].colour;
        graphs_[i]->setPen(QPen(colour.darker(dark ? 80 : 115), 1));
        graphs_[i]->setBrush(colors::mix(base, colour, 0.7));
    }
}

QString BandGraphs::cursorLines(std::size_t step, std::size_t lines) const {
    std::vector<std::pair<std::int64_t, std::size_t>> held;
    for (std::size_t b = 0; b < bands_.size(); ++b)
        if (const std::int64_t v = bands_[b].values[step]; v > 0) held.emplace_back(v, b);
    std::sort(held.begin(), held.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    const std::size_t shown = held.size() <= lines ? held.size() : lines - 1;
    QString text;
    for (std::size_t i = 0; i < shown; ++i)
        text += QStringLiteral("\n  ") % elided(bands_[held[i].second].name) % QStringLiteral(" ") %
                formatBytes(held[i].first);
    if (held.size() > shown)
        text += QStringLiteral("\n  ") % QObject::tr("%n more", nullptr, static_cast<int>(held.size() - shown));
    return text;
}
