#include "state/editedschedule.h"

#include "jobs/jobtracker.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/error.h>
#include <fxmem/profile_steps.h>
#include <fxmem/schedule.h>

#include <QStringList>
#include <QUndoStack>

#include <algorithm>

namespace {
// Core's messages quote node names whole: show their head only (a name may be 100 MB).
QString messageText(std::string_view message) { return elided(message, 4 * kMaxShownNameBytes); }
} // namespace

EditedSchedule::EditedSchedule(QObject* parent)
    : QObject(parent), stack_(new QUndoStack(this)), layoutJobs_(new JobTracker(this, 2, JobPriority::Background)) {
    // After the stack moved (push, undo, redo: never inside a push, where a clean mark would land
    // one command early): back at the saved order is clean, however it was reached.
    connect(stack_, &QUndoStack::indexChanged, this, [this] {
        if (!stack_->isClean() && schedule_ && !cleanOrder_.empty() && schedule_->order() == cleanOrder_)
            stack_->setClean();
    });
}

EditedSchedule::~EditedSchedule() {
    // Commands point at this object: drop them while it is whole.
    stack_->clear();
}

void EditedSchedule::setAnalysis(std::shared_ptr<const GraphAnalysis> analysis,
                                 std::shared_ptr<const fxmem::GraphLayout> originalLayout) {
    emit analysisAboutToChange();
    layoutJobs_->cancel();
    originalLayout_ = analysis ? std::move(originalLayout) : nullptr;
    stack_->clear();
    schedule_.reset();
    prepared_.reset();
    profileStep_.clear();
    inProfile_.clear();
    cleanOrder_.clear();
    userEdit_.clear();
    running_ = 0;
    analysis_ = std::move(analysis);
    if (analysis_) {
        const fxmem::Graph& graph = analysis_->graph();
        cleanOrder_ = fxmem::original_order(graph);
        schedule_ = std::make_unique<fxmem::IncrementalSchedule>(
            analysis_->file(), graph, analysis_->alias(), analysis_->releasable(), analysis_->counted(), cleanOrder_);
        inProfile_.assign(graph.size(), 0);
        for (std::size_t n = 0; n < graph.size(); ++n)
            inProfile_[n] = fxmem::has_profile_points(graph.nodes[n].op) ? 1 : 0;
        running_ = static_cast<std::size_t>(std::count(inProfile_.begin(), inProfile_.end(), std::uint8_t(1)));
        lastStep_ = fxmem::profile_size(running_) - 1;
        if (graph.size() > 0) updateProfileSteps(0, graph.size() - 1);
    }
    profile_.reset();
    peakStep_.reset();
    layout_.reset();
    layoutValid_ = false;
    emit analysisChanged();
    emit orderChanged();
}

const std::vector<fxmem::NodeId>& EditedSchedule::order() const {
    static const std::vector<fxmem::NodeId> none;
    return schedule_ ? schedule_->order() : none;
}

bool EditedSchedule::isEdited() const {
    if (!schedule_) return false;
    const std::vector<fxmem::NodeId>& o = schedule_->order();
    for (std::size_t p = 0; p < o.size(); ++p)
        if (o[p].index() != p) return true;
    return false;
}

void EditedSchedule::updateProfileSteps(std::size_t lo, std::size_t hi) {
    // Positions before lo keep their steps, so the count of profile nodes before lo is read off
    // the last profile node before it; only [lo, hi] is rewritten (a move costs |from - to|).
    const std::size_t n = schedule_->size();
    profileStep_.resize(n, 0);
    if (n == 0) return;
    std::size_t k = runningBefore(lo);
    for (std::size_t p = lo; p <= hi && p < n; ++p) {
        const fxmem::NodeId node = schedule_->at(p);
        if (inProfile_[node.index()])
            profileStep_[p] = fxmem::alloc_step(k++);
        else
            profileStep_[p] = analysis_->graph().node(node).op == fxmem::OpKind::Output ? lastStep_ : 0;
    }
}

std::size_t EditedSchedule::runningBefore(std::size_t position) const {
    for (std::size_t p = std::min(position, size()); p-- > 0;)
        if (inProfile_[schedule_->at(p).index()]) return fxmem::running_position(profileStep_[p]) + 1;
    return 0;
}

std::int64_t EditedSchedule::profileStep(std::size_t position) const {
    return position < profileStep_.size() ? profileStep_[position] : 0;
}

std::size_t EditedSchedule::positionOfProfileStep(std::int64_t step) const {
    const std::size_t n = size();
    if (n == 0 || step <= 0) return 0;
    // Profile steps grow with the position among profile nodes: binary search on those.
    std::size_t lo = 0, hi = n; // first position whose profile node has a step >= the node's alloc step
    const std::int64_t want = fxmem::alloc_step(fxmem::running_position(step));
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        // Non-profile positions take the step of the profile node before them (monotone).
        std::int64_t s = 0;
        for (std::size_t p = mid + 1; p-- > 0;)
            if (inProfile_[schedule_->at(p).index()]) {
                s = profileStep_[p];
                break;
            }
        if (s < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return std::min(lo, n - 1);
}

fxmem::IncrementalSchedule::LegalRange EditedSchedule::legalRange(std::size_t position) const {
    if (!schedule_) throw fxmem::Error("no graph is open");
    return schedule_->legal_range(position);
}

fxmem::IncrementalSchedule::MoveCheck EditedSchedule::checkMove(std::size_t from, std::size_t to) const {
    if (!schedule_) return {false, {}, "no graph is open"};
    if (from >= schedule_->size() || to >= schedule_->size())
        return {false, {}, "position " + std::to_string(std::max(from, to)) + " is outside the schedule"};
    return schedule_->check_move(from, to);
}

const std::vector<std::int64_t>& EditedSchedule::profile() const {
    if (!profile_) profile_ = schedule_ ? schedule_->profile() : std::vector<std::int64_t>{};
    return *profile_;
}

std::size_t EditedSchedule::peakStep() const {
    if (!peakStep_) {
        const std::vector<std::int64_t>& p = profile();
        peakStep_ = p.empty() ? 0 : static_cast<std::size_t>(std::max_element(p.begin(), p.end()) - p.begin());
    }
    return *peakStep_;
}

std::shared_ptr<const fxmem::GraphLayout> EditedSchedule::layout() const {
    if (!layoutValid_) {
        layout_ = nullptr;
        if (isEdited()) {
            layout_ = std::make_shared<const fxmem::GraphLayout>(analysis_->graph(), schedule_->order());
            ++layoutsBuiltHere_;
        }
        layoutValid_ = true;
    }
    return layout_;
}

bool EditedSchedule::layoutPending() const { return layoutJobs_->busy(); }

void EditedSchedule::dropLayout() {
    layoutJobs_->cancel();
    layout_.reset();
    layoutValid_ = false;
}

void EditedSchedule::moveLayout(std::size_t lo, std::size_t hi) {
    if (!isEdited()) { // back to the graph's own order: the scene's layout
        layoutJobs_->cancel();
        layout_.reset();
        layoutValid_ = true;
        return;
    }
    // The layout before the move: the edited one, or the scene's while the order was its own.
    const std::shared_ptr<const fxmem::GraphLayout> before = !layoutValid_ ? nullptr
                                                             : layout_     ? layout_
                                                                           : originalLayout_;
    if (!before) return dropLayout();
    std::vector<fxmem::NodeId> nodes;
    std::vector<std::int64_t> steps;
    for (std::size_t p = lo; p <= hi; ++p)
        if (inProfile_[schedule_->at(p).index()]) {
            nodes.push_back(schedule_->at(p));
            steps.push_back(profileStep_[p]);
        }
    try {
        layout_ = std::make_shared<const fxmem::GraphLayout>(before->with_steps(analysis_->graph(), nodes, steps));
    } catch (const fxmem::Error&) { // a layout of another order: lay the whole graph out when asked
        return dropLayout();
    }
    layoutValid_ = true;
    // The lanes of the new order, off this thread; the newest move's result is the one applied.
    layoutJobs_->start<fxmem::GraphLayout>(
        [analysis = analysis_, order = schedule_->order()](JobContext& job) {
            return std::make_shared<const fxmem::GraphLayout>(analysis->graph(), order, job.cancelCheck());
        },
        [this](std::shared_ptr<const fxmem::GraphLayout> full) {
            layout_ = std::move(full);
            layoutValid_ = true;
            emit layoutChanged();
        });
}

QString EditedSchedule::nodeName(fxmem::NodeId node) const { return elided(analysis_->graph().node(node).name); }

MoveOutcome EditedSchedule::answer(MoveOutcome outcome) {
    emit moveAnswered(outcome);
    return outcome;
}

MoveOutcome EditedSchedule::move(std::size_t from, std::size_t to, bool stepwise) {
    MoveOutcome out;
    out.from = from;
    out.to = to;
    if (schedule_ && from < size()) out.node = schedule_->at(from);
    const fxmem::IncrementalSchedule::MoveCheck check = checkMove(from, to);
    if (!check.ok) {
        out.why = messageText(check.reason);
        // Pinned by its own single-use views: offer to take them along.
        out.offer = companionsToOffer(from, to);
        if (!out.offer.empty()) {
            QStringList names;
            for (fxmem::NodeId n : out.offer) names << QLatin1Char('\'') % nodeName(n) % QLatin1Char('\'');
            out.offerText = tr("move with %1").arg(names.join(QStringLiteral(", ")));
            out.why += QStringLiteral("; ") % out.offerText;
        }
        // Where it may go instead, so the next try need not be a guess.
        if (out.node.valid() && analysis_->graph().node(out.node).op != fxmem::OpKind::Output) {
            const fxmem::IncrementalSchedule::LegalRange range = schedule_->legal_range(from);
            out.hint = tr("it may go to positions %1–%2").arg(range.lo).arg(range.hi);
        }
        return answer(std::move(out));
    }
    out.ok = true;
    if (from == to) return answer(std::move(out));
    const std::int64_t before = peak();
    stack_->push(new MoveNodeCommand(*this, out.node, nodeName(out.node), from, to, stepwise));
    out.done = tr("Moved '%1' from position %2 to %3: peak %4 → %5")
                   .arg(nodeName(out.node))
                   .arg(from)
                   .arg(to)
                   .arg(formatBytes(before), formatBytes(peak()));
    return answer(std::move(out));
}

MoveOutcome EditedSchedule::moveWithInputs(std::size_t from, std::size_t to) {
    MoveOutcome out;
    out.from = from;
    out.to = to;
    out.withInputs = true;
    if (!schedule_ || from >= size()) {
        out = move(from, to); // the plain move's refusal (announced there)
        return out;
    }
    out.node = schedule_->at(from);
    fxmem::IncrementalSchedule::MoveCheck check;
    const std::vector<fxmem::IncrementalSchedule::Step> steps = schedule_->plan_move_with(from, to, &check);
    if (!check.ok) {
        out.why = messageText(check.reason);
        return answer(std::move(out));
    }
    out.ok = true;
    if (steps.empty()) return answer(std::move(out));
    const std::int64_t before = peak();
    const QString name = nodeName(out.node);
    stack_->beginMacro(tr("Move '%1' with its inputs to position %2").arg(name).arg(steps.back().to));
    for (const fxmem::IncrementalSchedule::Step& st : steps)
        stack_->push(new MoveNodeCommand(*this, schedule_->at(st.from), nodeName(schedule_->at(st.from)), st.from,
                                         st.to, false));
    stack_->endMacro();
    out.done = tr("Moved '%1' with its inputs to position %2: peak %3 → %4")
                   .arg(name)
                   .arg(positionOf(out.node))
                   .arg(formatBytes(before), formatBytes(peak()));
    return answer(std::move(out));
}

MoveOutcome EditedSchedule::moveNodeTo(fxmem::NodeId node, std::size_t position) {
    if (!schedule_ || !node.valid() || node.index() >= size()) {
        MoveOutcome out;
        out.node = node;
        out.why = tr("no such node");
        return answer(std::move(out));
    }
    return move(positionOf(node), position);
}

MoveOutcome EditedSchedule::moveNodeAfter(fxmem::NodeId node, fxmem::NodeId after) {
    if (!schedule_ || !after.valid() || after.index() >= size()) return moveNodeTo(fxmem::NodeId(), 0);
    if (node == after) {
        MoveOutcome out;
        out.node = node;
        out.from = out.to = positionOf(node);
        out.why = tr("'%1' cannot go after itself").arg(nodeName(node));
        return answer(std::move(out));
    }
    if (!node.valid() || node.index() >= size()) return moveNodeTo(node, 0);
    // Final position: where `after` ends up once the node has left its place, plus one.
    const std::size_t from = positionOf(node), pa = positionOf(after);
    return move(from, pa > from ? pa : pa + 1);
}

std::vector<fxmem::NodeId> EditedSchedule::companionsToOffer(std::size_t from, std::size_t to) const {
    if (!schedule_ || from >= size() || to >= size()) return {};
    const fxmem::IncrementalSchedule::MoveCheck alone = schedule_->check_move(from, to);
    if (alone.ok) return {};
    std::vector<fxmem::NodeId> with = schedule_->companions(from);
    if (std::find(with.begin(), with.end(), alone.blocker) == with.end()) return {};
    fxmem::IncrementalSchedule::MoveCheck together;
    schedule_->plan_move_with(from, to, &together);
    return together.ok ? with : std::vector<fxmem::NodeId>{};
}

MoveOutcome EditedSchedule::setOrder(std::vector<fxmem::NodeId> order, const QString& text, bool userMade) {
    MoveOutcome out;
    if (!schedule_) {
        out.why = tr("no graph is open");
        return out;
    }
    out.ok = true;
    if (order == schedule_->order()) return out;
    // Built here first: an illegal order is refused before anything is pushed.
    try {
        prepared_ =
            std::make_unique<fxmem::IncrementalSchedule>(analysis_->file(), analysis_->graph(), analysis_->alias(),
                                                         analysis_->releasable(), analysis_->counted(), order);
    } catch (const fxmem::Error& e) {
        out.ok = false;
        out.why = messageText(e.what());
        return out;
    }
    picking_ = !userMade;
    stack_->push(new SetOrderCommand(*this, schedule_->order(), std::move(order), text));
    picking_ = false;
    return out;
}

MoveOutcome EditedSchedule::resetToOriginal() {
    if (!schedule_) return setOrder({}, {}, false);
    if (!isEdited()) return setOrder(schedule_->order(), {}, false);
    return setOrder(fxmem::original_order(analysis_->graph()), tr("Reset schedule"), true);
}

void EditedSchedule::markSaved() {
    cleanOrder_ = order();
    stack_->setClean();
}

bool EditedSchedule::isModified() const { return !stack_->isClean(); }

void EditedSchedule::applyMove(std::size_t from, std::size_t to) {
    const fxmem::IncrementalSchedule::MoveCheck check = checkMove(from, to);
    if (!check.ok) throw fxmem::Error(check.reason);
    if (from == to) return;
    emit aboutToMove(from, to);
    schedule_->move(from, to);
    updateProfileSteps(std::min(from, to), std::max(from, to));
    moveLayout(std::min(from, to), std::max(from, to));
    emit moved(from, to);
    changed();
}

void EditedSchedule::applyOrder(std::vector<fxmem::NodeId> order) {
    if (!analysis_) throw fxmem::Error("no graph is open");
    // Build first: an illegal order throws here and leaves everything as it was. setOrder built
    // it already.
    std::unique_ptr<fxmem::IncrementalSchedule> next = std::move(prepared_);
    if (!next || next->order() != order)
        next = std::make_unique<fxmem::IncrementalSchedule>(analysis_->file(), analysis_->graph(), analysis_->alias(),
                                                            analysis_->releasable(), analysis_->counted(),
                                                            std::move(order));
    emit orderAboutToBeReplaced(next->order());
    schedule_ = std::move(next);
    if (schedule_->size() > 0) updateProfileSteps(0, schedule_->size() - 1);
    dropLayout();
    emit orderReplaced();
    changed();
}

bool EditedSchedule::isStored(const std::vector<fxmem::NodeId>& order) const {
    bool original = true;
    for (std::size_t p = 0; p < order.size() && original; ++p) original = order[p].index() == p;
    if (original) return true;
    for (const fxmem::NamedSchedule& named : analysis_->file().schedules)
        if (named.graph == analysis_->graph_index() && named.order == order) return true;
    return false;
}

void EditedSchedule::changed() {
    profile_.reset();
    peakStep_.reset();
    // An order the user made (not a pick of a stored one) becomes "Your edit".
    if (!picking_ && !isStored(schedule_->order())) userEdit_ = schedule_->order();
    emit orderChanged();
}
