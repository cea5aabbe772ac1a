#include "dataflow/graphmodepane.h"

#include "dataflow/dataflowview.h"

#include <QAction>
#include <QButtonGroup>
#include <QHBoxLayout>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

GraphModePane::GraphModePane(QWidget* time, DataflowView* dataflow, QAction* dataflowAction, QWidget* parent)
    : QWidget(parent), action_(dataflowAction), time_(time), dataflow_(dataflow) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(4, 1, 4, 1);
    bar->setSpacing(2);
    auto* group = new QButtonGroup(this);
    const auto makeButton = [&](const QString& text, const QString& tip) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setToolTip(tip);
        b->setCheckable(true);
        b->setAutoRaise(true);
        group->addButton(b);
        bar->addWidget(b);
        return b;
    };
    timeButton_ = makeButton(tr("Time"), tr("The graph along the memory timeline (x: the profile step)"));
    timeButton_->setObjectName(QStringLiteral("graphModeTime"));
    dataflowButton_ =
        makeButton(tr("Dataflow"), tr("The graph as layered dataflow by module, inputs at the top (Ctrl+D)"));
    dataflowButton_->setObjectName(QStringLiteral("graphModeDataflow"));
    timeButton_->setChecked(true);
    bar->addStretch(1);
    layout->addLayout(bar);
    stack_ = new QStackedWidget;
    stack_->addWidget(time);
    stack_->addWidget(dataflow);
    layout->addWidget(stack_, 1);
    connect(timeButton_, &QToolButton::clicked, this, [this] { setMode(Mode::Time); });
    connect(dataflowButton_, &QToolButton::clicked, this, [this] { setMode(Mode::Dataflow); });
    if (action_) {
        action_->setCheckable(true);
        connect(action_, &QAction::toggled, this, [this](bool on) { setMode(on ? Mode::Dataflow : Mode::Time); });
    }
}

void GraphModePane::setMode(Mode mode) {
    if (mode == mode_) return;
    mode_ = mode;
    const bool dataflow = mode == Mode::Dataflow;
    (dataflow ? dataflowButton_ : timeButton_)->setChecked(true);
    if (action_) action_->setChecked(dataflow);
    QWidget* shown = dataflow ? static_cast<QWidget*>(dataflow_) : time_;
    const bool hadFocus = stack_->currentWidget() && stack_->currentWidget()->hasFocus();
    stack_->setCurrentWidget(shown);
    if (hadFocus) shown->setFocus();
    emit modeChanged(mode);
}
