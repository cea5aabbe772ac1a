#include "mainwindow/maintoolbar.h"

#include "mainwindow/appsettings.h"
#include "mainwindow/mainactions.h"
#include "util/text.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>

#include <algorithm>

MainToolbar::MainToolbar(MainActions* actions, QWidget* parent) : QToolBar(tr("Main"), parent) {
    setObjectName(QStringLiteral("mainToolbar"));
    setMovable(false);
    setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    addAction(actions->open);
    addSeparator();
    addWidget(new QLabel(tr(" Graph ")));
    graph_ = new QComboBox;
    graph_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    graph_->setMinimumContentsLength(22);
    graph_->setToolTip(tr("Graph of the file to show; a forward/backward pair can be shown joined"));
    addWidget(graph_);
    connect(graph_, &QComboBox::activated, this, [this](int index) {
        const QPoint choice = graph_->itemData(index).toPoint();
        emit graphChosen(choice.x(), choice.y());
    });
    addWidget(new QLabel(tr("  Devices ")));
    device_ = new QComboBox;
    device_->addItem(tr("Non-CPU (as PyTorch)"));
    device_->addItem(tr("All devices"));
    device_->setToolTip(tr("Which storages count: PyTorch's estimator ignores CPU storages"));
    addWidget(device_);
    connect(device_, &QComboBox::activated, this, [this] { emit deviceFilterChosen(deviceFilter()); });
    addWidget(new QLabel(tr("  Colour ")));
    colour_ = new QComboBox;
    colour_->setObjectName(QStringLiteral("colorCombo"));
    // The graph view's modes, its default (op category) first.
    for (NodeColorMode m : kNodeColorModes) colour_->addItem(colorModeName(m), static_cast<int>(m));
    colour_->setToolTip(tr("How the graph view colours its nodes (the legend under it says what each colour means)"));
    colour_->setCurrentIndex(std::max(colour_->findData(static_cast<int>(AppSettings::nodeColorMode())), 0));
    addWidget(colour_);
    connect(colour_, &QComboBox::currentIndexChanged, this, [this] {
        AppSettings::setNodeColorMode(colorMode());
        emit colorModeChosen(colorMode());
    });
    addSeparator();
    addAction(actions->resetZoom);
    addAction(actions->exportPlot);
}

DeviceFilter MainToolbar::deviceFilter() const {
    return device_->currentIndex() == 1 ? DeviceFilter::All : DeviceFilter::NonCpu;
}

void MainToolbar::setDeviceFilter(DeviceFilter filter) {
    const QSignalBlocker block(device_);
    device_->setCurrentIndex(filter == DeviceFilter::All ? 1 : 0);
}

NodeColorMode MainToolbar::colorMode() const { return static_cast<NodeColorMode>(colour_->currentData().toInt()); }

void MainToolbar::showScene(const Scene* scene) {
    graph_->clear();
    if (!scene) return;
    const fxmem::GraphFile& f = *scene->file;
    if (!f.step.empty())
        graph_->addItem(tr("Whole step  (%n graph runs)", nullptr, static_cast<int>(f.step.size())), QPoint(-1, -1));
    for (std::size_t g = 0; g < f.graphs.size(); ++g)
        graph_->addItem(tr("%1  (%2, %L3 nodes)")
                            .arg(elided(f.graphs[g].name, 60), toQString(fxmem::to_string(f.graphs[g].kind)))
                            .arg(f.graphs[g].size()),
                        QPoint(static_cast<int>(g), -1));
    for (std::size_t p = 0; p < f.pairs.size(); ++p)
        graph_->addItem(
            tr("%1 + %2  (pair, joined)")
                .arg(elided(f.graph(f.pairs[p].forward).name, 40), elided(f.graph(f.pairs[p].backward).name, 40)),
            QPoint(-1, static_cast<int>(p)));
    const QPoint current = scene->request.wholeStep
                               ? QPoint(-1, -1)
                               : QPoint(scene->request.pair >= 0 ? -1 : scene->request.graph, scene->request.pair);
    graph_->setCurrentIndex(std::max(0, graph_->findData(current)));
    setDeviceFilter(scene->request.filter);
}
