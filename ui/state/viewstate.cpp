#include "state/viewstate.h"

#include "analysis/liveatstep.h"

#include "util/afterpaint.h"
#include "util/text.h"

#include <QUndoGroup>
#include <QUndoStack>

#include <fxmem/profile_steps.h>
#include <fxmem/schedule.h>

ViewState::ViewState(QObject* parent)
    : QObject(parent), schedule_(new EditedSchedule(this)), history_(new QUndoGroup(this)),
      pairEdits_(new QUndoStack(this)), builder_(new OrderedLiveBuilder(this)) {
    history_->addStack(schedule_->undoStack());
    history_->addStack(pairEdits_);
    history_->setActiveStack(schedule_->undoStack());
    connect(schedule_, &EditedSchedule::orderChanged, this, &ViewState::onScheduleChanged);
    connect(builder_, &OrderedLiveBuilder::ready, this, [this](std::shared_ptr<const OrderedLive> live) {
        if (!scene_ || scene_->joined() || scene_->empty() || !edited_ ||
            live->analysis != scene_->segments.front().analysis)
            return;
        ordered_ = std::move(live);
        liveAt_.reset();
        announceOrderedLive();
    });
    connect(builder_, &OrderedLiveBuilder::failed, this, [this](const QString& message) {
        emit orderedLiveFailed(message);
        announceOrderedLive();
    });
}

ViewState::~ViewState() = default;

bool ViewState::liveStale() const { return builder_->pending(); }

void ViewState::setUnits(ByteUnits units) {
    ByteUnitsWriter::set(units); // what formatBytes reads; only here (another ViewState may have set it)
    if (units == units_) return;
    units_ = units;
    emit unitsChanged(units);
}

void ViewState::setScene(std::shared_ptr<const Scene> scene) {
    builder_->cancel();
    backToOriginalPending_ = false;
    ++orderGeneration_; // a pending announcement of the previous scene's order is dropped
    scene_ = std::move(scene);
    cursor_ = -1;
    node_ = {};
    module_ = QString();
    edited_ = false;
    ordered_.reset();
    liveAt_.reset();
    // The schedule follows first, so that every view finds it on the new graph.
    const bool single = scene_ && !scene_->empty() && !scene_->joined();
    settingScene_ = true;
    schedule_->setAnalysis(single ? scene_->segments.front().analysis : nullptr,
                           single ? scene_->segments.front().layout : nullptr);
    settingScene_ = false;
    history_->setActiveStack(single || !scene_ || scene_->empty() ? schedule_->undoStack() : pairEdits_);
    const bool hadLive = shown_ != nullptr;
    shown_.reset();
    emit sceneChanged(scene_);
    if (hadLive) emit shownLiveChanged();
}

void ViewState::setCursorStep(std::int64_t step) {
    if (step == cursor_) return;
    cursor_ = step;
    liveAt_.reset();
    emit cursorStepChanged(step);
    showLive(true);
}

void ViewState::selectNode(NodeRef ref, bool center) {
    if (!scene_ || !ref.valid()) return;
    node_ = ref;
    emit nodeSelected(ref, center); // also when unchanged: "center" may be asked again
}

void ViewState::selectModule(const QString& module) {
    if (module == module_ && module.isNull() == module_.isNull()) return;
    module_ = module;
    emit moduleSelected(module_);
}

const std::vector<fxmem::NodeId>& ViewState::editedOrder() const {
    static const std::vector<fxmem::NodeId> none;
    return edited_ ? schedule_->order() : none;
}

const std::vector<std::int64_t>& ViewState::editedProfile() const {
    static const std::vector<std::int64_t> none;
    return edited_ ? schedule_->profile() : none;
}

void ViewState::onScheduleChanged() {
    // setScene sets the schedule up (the original order) before it announces the scene.
    if (settingScene_ || !scene_ || scene_->joined() || scene_->empty() ||
        schedule_->analysis() != scene_->segments.front().analysis)
        return;
    const bool was = edited_;
    edited_ = schedule_->isEdited();
    const quint64 generation = ++orderGeneration_;
    backToOriginalPending_ = false;
    if (!edited_) {
        builder_->cancel();
        ordered_.reset();
        liveAt_.reset();
        if (!was) {
            announceOrderedLive();
            return;
        }
        // Back to the graph's own order: its index answers at once, but listing the live set
        // again (O(live), 27k rows at a large peak) waits for the frame that shows the edit.
        backToOriginalPending_ = true;
        emit orderChanged();
        postAfterPaint(this, AfterPaint::Redraw, [this, generation] {
            if (generation != orderGeneration_) return; // another edit came first
            backToOriginalPending_ = false;
            announceOrderedLive();
        });
        return;
    }
    // The live table follows once the edited order's index is built (off this thread); until
    // then the previous index answers and liveStale() says so.
    builder_->request(schedule_->analysis(), schedule_->order());
    emit orderChanged();
    showLive(false);
}

void ViewState::announceOrderedLive() {
    emit orderedLiveChanged();
    showLive(true);
}

void ViewState::showLive(bool follow) {
    if (!scene_ || cursor_ < 0) {
        if (!shown_) return;
        shown_.reset();
        emit shownLiveChanged();
        return;
    }
    if (!follow && (backToOriginalPending_ || liveStale())) return;
    if (liveAtCursor() == shown_) return;
    shown_ = liveAtCursor();
    emit shownLiveChanged();
}

fxmem::NodeId ViewState::nodeAt(const Scene::Where& where, bool edited) const {
    if (!scene_ || where.segment < 0) return {};
    const Segment& seg = scene_->segments[static_cast<std::size_t>(where.segment)];
    const fxmem::LiveSetIndex& index = shownIndex(*scene_, seg, edited ? ordered_.get() : nullptr);
    return where.step < index.profile_size() ? index.node_at(where.step) : fxmem::NodeId{};
}

QString ViewState::describeStep(std::int64_t step, bool edited) const {
    if (!scene_) return {};
    const Scene::Where w = scene_->locate(step);
    if (w.segment < 0) return {};
    const Segment& seg = scene_->segments[static_cast<std::size_t>(w.segment)];
    const auto phase = fxmem::phase_of(static_cast<std::int64_t>(w.step));
    if (phase == fxmem::StepPhase::Start)
        return scene_->joined() ? tr("%1 start").arg(elided(scene_->segmentName(static_cast<std::size_t>(w.segment))))
                                : tr("start");
    const fxmem::NodeId n = nodeAt(w, edited);
    if (!n.valid()) return {};
    const QString what = phase == fxmem::StepPhase::AfterAlloc ? tr("after alloc") : tr("after free");
    const QString node = elided(seg.analysis->graph().node(n).name) % QStringLiteral(" (") % what % QLatin1Char(')');
    // The whole step runs a graph several times: which run it is comes first.
    return scene_->wholeStep()
               ? elided(scene_->segmentName(static_cast<std::size_t>(w.segment))) % QStringLiteral(": ") % node
               : node;
}

std::int64_t ViewState::plottedAt(std::int64_t step) const {
    if (!scene_ || step < 0) return 0;
    const bool edited = ordered_ && edited_;
    const std::vector<std::int64_t>& curve = edited ? schedule_->profile() : scene_->profile;
    return static_cast<std::size_t>(step) < curve.size() ? curve[static_cast<std::size_t>(step)] : 0;
}

std::int64_t ViewState::stepOf(NodeRef ref) const {
    if (!scene_ || !ref.valid()) return -1;
    if (edited_ && ref.segment == 0 && !scene_->joined())
        return scene_->segments.front().offset + schedule_->stepOf(ref.node);
    return scene_->globalStep(ref.segment, ref.node);
}

const std::shared_ptr<const LiveAtStep>& ViewState::liveAtCursor() const {
    if (!liveAt_)
        liveAt_ = std::make_shared<const LiveAtStep>(
            scene_ && cursor_ >= 0 ? liveAtStep(*scene_, ordered_.get(), cursor_) : LiveAtStep{});
    return liveAt_;
}
