#include "schedule/schedulemodel.h"

#include "util/text.h"
#include "util/units.h"

#include <fxmem/error.h>
#include <fxmem/profile_steps.h>
#include <fxmem/schedule.h>

#include <QFontDatabase>
#include <QIODevice>
#include <QMimeData>

#include <algorithm>

namespace {

QString opName(fxmem::OpKind op) {
    const std::string_view name = fxmem::to_string(op);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

} // namespace

ScheduleModel::ScheduleModel(QObject* parent)
    : QAbstractTableModel(parent), fixedFont_(QFontDatabase::systemFont(QFontDatabase::FixedFont)) {
    fixedBoldFont_ = fixedFont_;
    fixedBoldFont_.setBold(true);
    boldFont_.setBold(true);
}
ScheduleModel::~ScheduleModel() = default;

void ScheduleModel::setAnalysis(std::shared_ptr<const GraphAnalysis> analysis) {
    beginResetModel();
    schedule_.reset();
    freshBytes_.clear();
    inProfile_.clear();
    profileStep_.clear();
    dragSource_.reset();
    analysis_ = std::move(analysis);
    if (analysis_) {
        const fxmem::GraphFile& file = analysis_->file();
        const fxmem::Graph& graph = analysis_->graph();
        schedule_ = std::make_unique<fxmem::IncrementalSchedule>(file, graph, analysis_->alias(),
                                                                 analysis_->releasable(), analysis_->counted(),
                                                                 fxmem::original_order(graph));
        // Only what MemoryTracker adds when scheduling a node: placeholders and get_attr are
        // live from the start, the output node allocates nothing.
        freshBytes_.assign(graph.size(), 0);
        inProfile_.assign(graph.size(), 0);
        for (std::size_t n = 0; n < graph.size(); ++n) {
            const fxmem::NodeId id(static_cast<std::int32_t>(n));
            if (!fxmem::has_profile_points(graph.node(id).op)) continue;
            inProfile_[n] = 1;
            for (fxmem::StorageId s : analysis_->alias().fresh_of(id))
                if (analysis_->counted()[s.index()]) freshBytes_[n] += file.nbytes(s);
        }
        // The output node sits on the profile's last step (any order).
        const auto running = static_cast<std::size_t>(std::count(inProfile_.begin(), inProfile_.end(), std::uint8_t(1)));
        lastStep_ = fxmem::profile_size(running) - 1;
        updateProfileSteps(0, graph.size() == 0 ? 0 : graph.size() - 1);
    }
    updatePeakRow(false);
    endResetModel();
    emit orderChanged();
}

fxmem::IncrementalSchedule::MoveCheck ScheduleModel::checkMove(std::size_t from, std::size_t to) const {
    if (!schedule_) return {false, {}, "no graph is open"};
    if (from >= schedule_->size() || to >= schedule_->size())
        return {false, {}, "position " + std::to_string(std::max(from, to)) + " is outside the schedule"};
    return schedule_->check_move(from, to);
}

void ScheduleModel::moveNode(std::size_t from, std::size_t to) {
    if (!schedule_) throw fxmem::Error("no graph is open");
    const fxmem::IncrementalSchedule::MoveCheck check = checkMove(from, to);
    if (!check.ok) throw fxmem::Error(check.reason);
    if (from == to) return;
    // Qt's destination is the row the node goes before, counted before the move.
    const int f = static_cast<int>(from), t = static_cast<int>(to);
    beginMoveRows({}, f, f, {}, to > from ? t + 1 : t);
    schedule_->move(from, to);
    updateProfileSteps(std::min(from, to), std::max(from, to));
    endMoveRows();
    // Only the nodes between from and to see a different set before them; memory after the
    // later of the two is unchanged because MemoryTracker's state depends on the set scheduled.
    const int lo = std::min(f, t), hi = std::max(f, t);
    emit dataChanged(index(lo, 0), index(hi, ColumnCount - 1));
    updatePeakRow(true);
    emit orderChanged();
}

void ScheduleModel::setOrder(std::vector<fxmem::NodeId> order) {
    if (!analysis_) throw fxmem::Error("no graph is open");
    // Build first: an illegal order throws here and leaves the model as it was.
    auto next = std::make_unique<fxmem::IncrementalSchedule>(analysis_->file(), analysis_->graph(),
                                                             analysis_->alias(), analysis_->releasable(),
                                                             analysis_->counted(), std::move(order));
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    QModelIndexList after;
    after.reserve(before.size());
    for (const QModelIndex& i : before) {
        const fxmem::NodeId node = schedule_->at(static_cast<std::size_t>(i.row()));
        after.push_back(index(static_cast<int>(next->position_of(node)), i.column()));
    }
    schedule_ = std::move(next);
    if (schedule_->size() > 0) updateProfileSteps(0, schedule_->size() - 1);
    changePersistentIndexList(before, after);
    updatePeakRow(false);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    emit orderChanged();
}

std::int64_t ScheduleModel::afterOrStart(std::size_t position) const {
    return position == 0 ? schedule_->start() : schedule_->after(position - 1);
}

std::int64_t ScheduleModel::during(std::size_t position) const {
    return afterOrStart(position) + freshBytes_[schedule_->at(position).index()];
}

void ScheduleModel::updateProfileSteps(std::size_t lo, std::size_t hi) {
    // Positions before lo keep their steps, so the count of profile nodes before lo is read off
    // the last profile node before it; only [lo, hi] is rewritten (a move costs |from - to|).
    const std::size_t n = schedule_->size();
    profileStep_.resize(n, 0);
    if (n == 0) return;
    std::size_t k = 0;  // running position of the next profile node
    for (std::size_t p = lo; p-- > 0;)
        if (inProfile_[schedule_->at(p).index()]) {
            k = fxmem::running_position(profileStep_[p]) + 1;
            break;
        }
    for (std::size_t p = lo; p <= hi && p < n; ++p) {
        const fxmem::NodeId node = schedule_->at(p);
        if (inProfile_[node.index()]) {
            profileStep_[p] = fxmem::alloc_step(k++);
        } else {
            profileStep_[p] = analysis_->graph().node(node).op == fxmem::OpKind::Output ? lastStep_ : 0;
        }
    }
}

std::int64_t ScheduleModel::profileStep(std::size_t position) const {
    return position < profileStep_.size() ? profileStep_[position] : 0;
}

std::size_t ScheduleModel::positionOfProfileStep(std::int64_t step) const {
    const std::size_t n = size();
    if (n == 0 || step <= 0) return 0;
    // Profile steps grow with the position among profile nodes: binary search on those.
    std::size_t lo = 0, hi = n;  // first position whose profile node has a step >= the node's alloc step
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
        if (s < want) lo = mid + 1;
        else hi = mid;
    }
    return std::min(lo, n - 1);
}

std::vector<std::int64_t> ScheduleModel::profile() const {
    std::vector<std::int64_t> out;
    if (!schedule_) return out;
    const std::vector<std::int64_t> after = schedule_->current();
    out.reserve(1 + 2 * after.size());
    out.push_back(schedule_->start());
    std::int64_t previous = schedule_->start();
    for (std::size_t p = 0; p < after.size(); ++p) {
        const fxmem::NodeId node = schedule_->at(p);
        if (inProfile_[node.index()]) {
            out.push_back(previous + freshBytes_[node.index()]);
            out.push_back(after[p]);
        }
        previous = after[p];
    }
    return out;
}

void ScheduleModel::updatePeakRow(bool notify) {
    const std::size_t old = peakRow_;
    const bool had = hasPeakRow_;
    hasPeakRow_ = schedule_ && schedule_->size() > 0;
    peakRow_ = hasPeakRow_ ? schedule_->peak_position() : 0;
    if (!notify) return;
    if (had && old != peakRow_ && old < size())
        emit dataChanged(index(static_cast<int>(old), 0), index(static_cast<int>(old), ColumnCount - 1));
    if (hasPeakRow_)
        emit dataChanged(index(static_cast<int>(peakRow_), 0), index(static_cast<int>(peakRow_), ColumnCount - 1));
}

void ScheduleModel::setDragSource(std::optional<std::size_t> position) {
    if (position && *position >= size()) position.reset();
    if (position == dragSource_) return;
    dragSource_ = position;
    if (dragSource_) dragRange_ = schedule_->legal_range(*dragSource_);
    if (size() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {LegalDropRole});
}

std::size_t ScheduleModel::targetPosition(std::size_t from, std::size_t insertRow) {
    return insertRow > from ? insertRow - 1 : insertRow;
}

int ScheduleModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(size());
}

int ScheduleModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ScheduleModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !schedule_)
        return {};
    const auto position = static_cast<std::size_t>(index.row());
    const fxmem::NodeId node = schedule_->at(position);
    const fxmem::Node& n = analysis_->graph().node(node);
    const bool isPeak = hasPeakRow_ && position == peakRow_;
    const auto after = [&] { return schedule_->after(position); };
    const auto delta = [&] { return schedule_->after(position) - afterOrStart(position); };
    const auto target = [&] { return analysis_->graph().target(node); };
    const auto col = static_cast<Column>(index.column());

    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case StepColumn: return QString::number(position);
        case ProfileStepColumn: return QString::number(profileStep(position));
        case NodeColumn: return elided(n.name);
        case TargetColumn:
            // call_function shows its target alone (the common case); other ops name themselves,
            // with their target when it says more than the op ("output output").
            if (n.op == fxmem::OpKind::CallFunction && !target().empty()) return elided(target());
            if (target().empty() || target() == fxmem::to_string(n.op)) return opName(n.op);
            return QString(opName(n.op) % QLatin1Char(' ') % elided(target()));
        case DuringColumn: return formatBytes(during(position));
        case MemoryColumn: return formatBytes(after());
        case DeltaColumn: return delta() == 0 ? QString() : formatDelta(delta(), 0);
        case OriginalStepColumn: return node.index() == position ? QString() : QString::number(node.index());
        case ColumnCount: break;
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("<b>%1</b> (%2)<br>after allocations: %3<br>after frees: %4")
                          .arg(elided(n.name).toHtmlEscaped(), opName(n.op),
                               formatBytes(during(position)), formatBytes(after()));
        tip += QStringLiteral("<br>position %1 · profile step %2").arg(position).arg(profileStep(position));
        if (node.index() != position) tip += QStringLiteral("<br>originally at position %1").arg(node.index());
        if (isPeak) tip += QStringLiteral("<br><b>peak of this order</b>");
        return tip;
    }
    case Qt::TextAlignmentRole:
        return col == NodeColumn || col == TargetColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (col == NodeColumn || col == TargetColumn) return isPeak ? QVariant(boldFont_) : QVariant();
        // Fixed-width digits keep the numbers of consecutive rows aligned.
        return isPeak ? fixedBoldFont_ : fixedFont_;
    case NodeIdRole: return node.value;
    case SortRole:
        switch (col) {
        case StepColumn: return static_cast<qulonglong>(position);
        case ProfileStepColumn: return static_cast<qlonglong>(profileStep(position));
        case NodeColumn: return elided(n.name);
        case TargetColumn: return elided(target());
        case DuringColumn: return static_cast<qlonglong>(during(position));
        case MemoryColumn: return static_cast<qlonglong>(after());
        case DeltaColumn: return static_cast<qlonglong>(delta());
        case OriginalStepColumn: return static_cast<qulonglong>(node.index());
        case ColumnCount: break;
        }
        return {};
    case BytesRole: return static_cast<qlonglong>(after());
    case DeltaRole: return static_cast<qlonglong>(delta());
    case DuringRole: return static_cast<qlonglong>(during(position));
    case OriginalStepRole: return static_cast<qulonglong>(node.index());
    case IsPeakRole: return isPeak;
    case ProfileStepRole: return static_cast<qlonglong>(profileStep(position));
    case LegalDropRole:
        if (!dragSource_) return {};
        return position >= dragRange_.lo && position <= dragRange_.hi;
    default: return {};
    }
}

QVariant ScheduleModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::TextAlignmentRole)
        return section == NodeColumn || section == TargetColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case StepColumn: return tr("Position in this order (what a move counts: 0 = first node, placeholders included)");
        case ProfileStepColumn:
            return tr("Profile step in this order: the step the timeline, the graph view and the node inspector show "
                      "(1 + 2k for the k-th node with profile points)");
        case DuringColumn: return tr("Memory after the node's allocations, before its frees: where a peak is reached");
        case MemoryColumn: return tr("Memory live after the node ran and freed what it no longer needs");
        case DeltaColumn: return tr("Change of memory over the node");
        case OriginalStepColumn: return tr("Position in the graph's original order, when it moved");
        case NodeColumn: return tr("Node name");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case StepColumn: return tr("Pos");
    case ProfileStepColumn: return tr("Step");
    case NodeColumn: return tr("Node");
    case TargetColumn: return tr("Op / target");
    case DuringColumn: return tr("During");
    case MemoryColumn: return tr("After");
    case DeltaColumn: return tr("Change");
    case OriginalStepColumn: return tr("Was pos");
    default: return {};
    }
}

Qt::ItemFlags ScheduleModel::flags(const QModelIndex& index) const {
    // Rows are drag sources; only the space between rows (the root) takes drops, so the view
    // draws an insertion line rather than dropping onto an item.
    if (!index.isValid()) return schedule_ ? Qt::ItemIsDropEnabled : Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemNeverHasChildren;
    if (analysis_->graph().node(schedule_->at(static_cast<std::size_t>(index.row()))).op != fxmem::OpKind::Output)
        f |= Qt::ItemIsDragEnabled;
    return f;
}

bool ScheduleModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                             const QModelIndex& destinationParent, int destinationChild) {
    if (sourceParent.isValid() || destinationParent.isValid() || count != 1 || sourceRow < 0 ||
        sourceRow >= rowCount() || destinationChild < 0 || destinationChild > rowCount())
        return false;
    const auto from = static_cast<std::size_t>(sourceRow);
    const std::size_t to = targetPosition(from, static_cast<std::size_t>(destinationChild));
    if (!checkMove(from, to).ok) return false;
    moveNode(from, to);
    return true;
}

QStringList ScheduleModel::mimeTypes() const { return {QString::fromLatin1(kMimeType)}; }

QMimeData* ScheduleModel::mimeData(const QModelIndexList& indexes) const {
    if (indexes.isEmpty() || !schedule_) return nullptr;
    const int row = indexes.front().row();
    for (const QModelIndex& i : indexes)
        if (i.row() != row) return nullptr;  // one node at a time
    // The position plus the node id, so a stale drag (the order changed meanwhile) is refused.
    auto* mime = new QMimeData;
    const QByteArray payload = QByteArray::number(row) + ' ' + QByteArray::number(schedule_->at(row).value);
    mime->setData(QString::fromLatin1(kMimeType), payload);
    return mime;
}

std::optional<std::size_t> ScheduleModel::decodePosition(const QMimeData* data) const {
    if (!data || !schedule_ || !data->hasFormat(QString::fromLatin1(kMimeType))) return {};
    const QList<QByteArray> parts = data->data(QString::fromLatin1(kMimeType)).split(' ');
    if (parts.size() != 2) return {};
    bool okRow = false, okNode = false;
    const qulonglong row = parts[0].toULongLong(&okRow);
    const int node = parts[1].toInt(&okNode);
    if (!okRow || !okNode || row >= size() || schedule_->at(row).value != node) return {};
    return static_cast<std::size_t>(row);
}

std::optional<std::size_t> ScheduleModel::dropTarget(const QMimeData* data, int row, const QModelIndex& parent,
                                                     std::size_t* from) const {
    const std::optional<std::size_t> source = decodePosition(data);
    if (!source) return {};
    // Dropped onto an item: before it. Onto empty space (row -1): at the end.
    int insertRow = row;
    if (parent.isValid()) insertRow = parent.row();
    if (insertRow < 0 || insertRow > rowCount()) insertRow = rowCount();
    *from = *source;
    return targetPosition(*source, static_cast<std::size_t>(insertRow));
}

bool ScheduleModel::canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int,
                                    const QModelIndex& parent) const {
    if (action != Qt::MoveAction) return false;
    std::size_t from = 0;
    const std::optional<std::size_t> to = dropTarget(data, row, parent, &from);
    return to && checkMove(from, *to).ok;
}

bool ScheduleModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int,
                                 const QModelIndex& parent) {
    if (action != Qt::MoveAction) return false;
    std::size_t from = 0;
    const std::optional<std::size_t> to = dropTarget(data, row, parent, &from);
    if (!to) return false;
    if (moveHandler_) return moveHandler_(from, *to);
    if (!checkMove(from, *to).ok) return false;
    moveNode(from, *to);
    return true;
}
