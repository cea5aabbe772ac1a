#include "timeline/timelinelegend.h"

#include "util/colors.h"

TimelineLegend::TimelineLegend(QCustomPlot* plot) : plot_(plot) {
    plot->legend->setVisible(false);
    plot->legend->setIconSize(18, 10);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
}

void TimelineLegend::applyPalette(const QColor& base, const QColor& text) {
    QColor background = base;
    background.setAlphaF(0.85f);
    plot_->legend->setBrush(background);
    plot_->legend->setBorderPen(QPen(colors::mix(base, text, 0.3)));
    plot_->legend->setTextColor(text);
}

void TimelineLegend::refreshEntries() {
    for (int i = 0; i < plot_->graphCount(); ++i) {
        QCPGraph* g = plot_->graph(i);
        if (g->visible() && !g->data()->isEmpty() && !g->name().isEmpty())
            g->addToLegend();
        else
            g->removeFromLegend();
    }
}

void TimelineLegend::refresh(bool wanted) {
    refreshEntries();
    QCPLegend* legend = plot_->legend;
    QCPLayoutGrid* layout = plot_->plotLayout();
    const bool show = wanted && legend->itemCount() > 0;
    if (show && !column_) {
        plot_->axisRect()->insetLayout()->take(legend);
        column_ = new QCPLayoutGrid;
        int row = 0;
        for (int r = 0; r < layout->rowCount(); ++r)
            if (layout->element(r, 0) == plot_->axisRect()) row = r;
        layout->addElement(row, 1, column_);
        layout->setColumnStretchFactor(1, 0.001);
        column_->addElement(0, 0, legend);
        column_->addElement(1, 0, new QCPLayoutElement(plot_)); // takes the rest of the height
        column_->setRowStretchFactor(0, 0.001);
        column_->setMargins(QMargins(0, 6, 6, 0));
    } else if (!show && column_) {
        column_->take(legend);
        layout->remove(column_);
        column_ = nullptr;
        layout->simplify();
        plot_->axisRect()->insetLayout()->addElement(legend, Qt::AlignTop | Qt::AlignRight);
    }
    legend->setVisible(show);
}

void TimelineLegend::showTitle(const QString& title, const QFont& font, const QColor& colour) {
    title_ = new QCPTextElement(plot_, title, font);
    title_->setTextColor(colour);
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, title_);
}

void TimelineLegend::hideTitle() {
    if (!title_) return;
    plot_->plotLayout()->remove(title_);
    title_ = nullptr;
    plot_->plotLayout()->simplify();
}
