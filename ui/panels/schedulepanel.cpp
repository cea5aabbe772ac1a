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
    connect(state_, &ViewState::cursorStepChanged, this, [this] {
        if (state_->scene() && state_->scene()->wholeStep()) showWholeStep();
    });
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
    if (scene->wholeStep()) return showWholeStep();
    const GraphAnalysis& fwd = *scene->segments.front().analysis;
    const GraphAnalysis& bwd = *scene->segments.back().analysis;
    forwardGraph_ = fwd.graph_index().value;
    backwardGraph_ = bwd.graph_index().value;
    message_->setText(tr("<b>Nothing to reorder in a joined view.</b> The schedule editor reorders one graph; this "
                         "view shows the forward and the backward of a pair on one time axis. Show one of them to "
                         "edit its schedule:"));
    forward_->setText(tr("Edit the forward (%1)").arg(elided(fwd.graph().name, 40)));
    backward_->setText(tr("Edit the backward (%1)").arg(elided(bwd.graph().name, 40)));
    forward_->show();
    backward_->show();
}

void SchedulePanel::showWholeStep() {
    const Scene& scene = *state_->scene();
    const std::int64_t cursor = state_->cursorStep();
    Scene::Where w = scene.locate(cursor >= 0 ? cursor : static_cast<std::int64_t>(scene.peakStep));
    if (w.segment < 0) w.segment = 0;
    const Segment& seg = scene.segments[static_cast<std::size_t>(w.segment)];
    forwardGraph_ = seg.analysis->graph_index().value;
    int runs = 0;
    for (const Segment& s : scene.segments) runs += s.analysis == seg.analysis ? 1 : 0;
    QString text = tr("<b>The whole step is not reordered here.</b> It shows every graph run of one training "
                      "step on one time axis; the schedule editor reorders one graph at a time.");
    if (runs > 1)
        text += tr(" <b>%1</b> runs %2 times in this step with one order: editing it changes every run.")
                    .arg(elided(seg.analysis->graph().name, 40).toHtmlEscaped())
                    .arg(runs);
    message_->setText(text % tr(" Open the graph of the run under the cursor to edit its schedule:"));
    forward_->setText(tr("Edit %1").arg(elided(seg.analysis->graph().name, 40)));
    forward_->setToolTip(tr("Shows %1 alone, with its schedule editor")
                             .arg(elided(scene.segmentName(static_cast<std::size_t>(w.segment)))));
    forward_->show();
    backward_->hide();
}
