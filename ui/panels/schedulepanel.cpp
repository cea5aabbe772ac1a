#include "panels/schedulepanel.h"

#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "util/text.h"

#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

SchedulePanel::SchedulePanel(ViewState* state, ScheduleEditor* editor, QWidget* parent)
    : QStackedWidget(parent), state_(state), editor_(editor) {
    addWidget(editor_);
    messagePage_ = new QWidget;
    auto* l = new QVBoxLayout(messagePage_);
    message_ = new QLabel;
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::RichText);
    message_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    forward_ = new QPushButton;
    backward_ = new QPushButton;
    l->addWidget(message_);
    l->addWidget(forward_);
    l->addWidget(backward_);
    l->addStretch(1);
    addWidget(messagePage_);
    connect(forward_, &QPushButton::clicked, this, [this] { emit graphRequested(forwardGraph_); });
    connect(backward_, &QPushButton::clicked, this, [this] { emit graphRequested(backwardGraph_); });
    connect(state_, &ViewState::sceneChanged, this, &SchedulePanel::onScene);
    onScene();
}

void SchedulePanel::onScene() {
    const auto& scene = state_->scene();
    const bool single = scene && !scene->empty() && !scene->joined();
    if (single || !scene) {
        setCurrentWidget(editor_);
        return;
    }
    setCurrentWidget(messagePage_);
    if (scene->empty()) {
        message_->setText(tr("The file holds no graph to reorder."));
        forward_->hide();
        backward_->hide();
        return;
    }
    const GraphAnalysis& fwd = *scene->segments.front().analysis;
    const GraphAnalysis& bwd = *scene->segments.back().analysis;
    forwardGraph_ = fwd.graphIndex();
    backwardGraph_ = bwd.graphIndex();
    message_->setText(tr("<b>Nothing to reorder in a joined view.</b> The schedule editor reorders one graph; this "
                         "view shows the forward and the backward of a pair on one time axis. Show one of them to "
                         "edit its schedule:"));
    forward_->setText(tr("Edit the forward (%1)").arg(elided(fwd.graph().name, 40)));
    backward_->setText(tr("Edit the backward (%1)").arg(elided(bwd.graph().name, 40)));
    forward_->show();
    backward_->show();
}
