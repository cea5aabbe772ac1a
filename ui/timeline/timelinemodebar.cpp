#include "timeline/timelinemodebar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

TimelineModeBar::TimelineModeBar(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    mode_ = new QComboBox(this);
    mode_->setObjectName(QStringLiteral("timelineMode"));
    mode_->addItem(tr("Total"));
    mode_->addItem(tr("By role"));
    mode_->addItem(tr("By module"));
    mode_->setToolTip(tr("Total: one curve. By role: parameters, activations, gradients, … stacked. "
                         "By module: the largest modules at the chosen depth, the rest as 'other'."));
    depth_ = new QSpinBox(this);
    depth_->setObjectName(QStringLiteral("timelineDepth"));
    depth_->setRange(1, 1);
    depth_->setPrefix(tr("depth "));
    depth_->setToolTip(tr("Module depth: 1 = top-level modules"));
    depth_->setEnabled(false);
    layout->addWidget(new QLabel(tr("Timeline"), this));
    layout->addWidget(mode_);
    layout->addWidget(depth_);
    layout->addStretch(1); // the controls keep their size; the bar's width is the timeline's
    connect(mode_, &QComboBox::currentIndexChanged, this, [this] {
        depth_->setEnabled(mode() == Mode::ByModule);
        emitChange();
    });
    connect(depth_, &QSpinBox::valueChanged, this, [this] {
        if (mode() == Mode::ByModule) emitChange();
    });
}

TimelineModeBar::Mode TimelineModeBar::mode() const { return static_cast<Mode>(mode_->currentIndex()); }
int TimelineModeBar::depth() const { return depth_->value(); }

TimelineModeBar::Mode TimelineModeBar::defaultFor(std::size_t nodes, bool hasRolesOrModules) {
    return nodes >= 500 && hasRolesOrModules ? Mode::ByRole : Mode::Total;
}

void TimelineModeBar::setMaxDepth(int depth) {
    const QSignalBlocker block(depth_);
    depth_->setRange(1, std::max(depth, 1));
}

void TimelineModeBar::setMode(Mode mode) { mode_->setCurrentIndex(static_cast<int>(mode)); }
void TimelineModeBar::setDepth(int depth) { depth_->setValue(depth); }

void TimelineModeBar::emitChange() { emit modeChanged(mode(), depth()); }
