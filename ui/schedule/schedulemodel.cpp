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

ScheduleModel::ScheduleModel(EditedSchedule* edited, QObject* parent)
    : QAbstractTableModel(parent), edited_(edited), fixedFont_(QFontDatabase::systemFont(QFontDatabase::FixedFont)) {
    fixedBoldFont_ = fixedFont_;
    fixedBoldFont_.setBold(true);
    boldFont_.setBold(true);
    connect(edited_, &EditedSchedule::analysisAboutToChange, this, [this] {
        beginResetModel();
        dragSource_.reset();
    });
    connect(edited_, &EditedSchedule::analysisChanged, this, [this] {
        updatePeakRow(false);
        endResetModel();
    });
    connect(edited_, &EditedSchedule::aboutToMove, this, [this](std::size_t from, std::size_t to) {
        // Qt's destination is the row the node goes before, counted before the move.
        const int f = static_cast<int>(from), t = static_cast<int>(to);
        beginMoveRows({}, f, f, {}, to > from ? t + 1 : t);
    });
    connect(edited_, &EditedSchedule::moved, this, [this](std::size_t from, std::size_t to) {
        endMoveRows();
        // Only the nodes between from and to see a different set before them; memory after the
        // later of the two is unchanged because MemoryTracker's state depends on the set scheduled.
        const int lo = static_cast<int>(std::min(from, to)), hi = static_cast<int>(std::max(from, to));
        emit dataChanged(index(lo, 0), index(hi, ColumnCount - 1));
        updatePeakRow(true);
    });
    connect(edited_, &EditedSchedule::orderAboutToBeReplaced, this, [this](const std::vector<fxmem::NodeId>&) {
        // Rows follow their nodes: persistent indexes are remapped, not reset.
        emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        replacing_ = persistentIndexList();
        replacingNodes_.clear();
        for (const QModelIndex& i : replacing_)
            replacingNodes_.push_back(schedule()->at(static_cast<std::size_t>(i.row())));
    });
    connect(edited_, &EditedSchedule::orderReplaced, this, [this] {
        QModelIndexList after;
        after.reserve(replacing_.size());
        for (qsizetype i = 0; i < replacing_.size(); ++i)
            after.push_back(
                index(static_cast<int>(schedule()->position_of(replacingNodes_[static_cast<std::size_t>(i)])),
                      replacing_[i].column()));
        changePersistentIndexList(replacing_, after);
        replacing_.clear();
        replacingNodes_.clear();
        updatePeakRow(false);
        emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    });
    connect(edited_, &EditedSchedule::orderChanged, this, &ScheduleModel::orderChanged);
}

ScheduleModel::~ScheduleModel() = default;

void ScheduleModel::refreshBytes() {
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

fxmem::IncrementalSchedule::MoveCheck ScheduleModel::checkMove(std::size_t from, std::size_t to) const {
    return edited_->checkMove(from, to);
}

std::int64_t ScheduleModel::afterOrStart(std::size_t position) const {
    return position == 0 ? schedule()->start() : schedule()->after(position - 1);
}

std::int64_t ScheduleModel::during(std::size_t position) const {
    return afterOrStart(position) + schedule()->alloc_of(schedule()->at(position));
}

void ScheduleModel::updatePeakRow(bool notify) {
    const std::size_t old = peakRow_;
    const bool had = hasPeakRow_;
    hasPeakRow_ = schedule() && schedule()->size() > 0;
    peakRow_ = hasPeakRow_ ? schedule()->peak_position() : 0;
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
    if (dragSource_) dragRange_ = edited_->legalRange(*dragSource_);
    if (size() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {LegalDropRole});
}

std::size_t ScheduleModel::targetPosition(std::size_t from, std::size_t insertRow) {
    return insertRow > from ? insertRow - 1 : insertRow;
}

int ScheduleModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(size()); }

int ScheduleModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ScheduleModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !schedule())
        return {};
    const auto position = static_cast<std::size_t>(index.row());
    const fxmem::NodeId node = schedule()->at(position);
    const fxmem::Node& n = analysis()->graph().node(node);
    const bool isPeak = hasPeakRow_ && position == peakRow_;
    const auto after = [&] { return schedule()->after(position); };
    const auto delta = [&] { return schedule()->after(position) - afterOrStart(position); };
    const auto target = [&] { return analysis()->graph().target(node); };
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
        QString tip =
            QStringLiteral("<b>%1</b> (%2)<br>after allocations: %3<br>after frees: %4")
                .arg(elided(n.name).toHtmlEscaped(), opName(n.op), formatBytes(during(position)), formatBytes(after()));
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
        case StepColumn:
            return tr("Position in this order (what a move counts: 0 = first node, placeholders included)");
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
    if (!index.isValid()) return schedule() ? Qt::ItemIsDropEnabled : Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemNeverHasChildren;
    if (analysis()->graph().node(schedule()->at(static_cast<std::size_t>(index.row()))).op != fxmem::OpKind::Output)
        f |= Qt::ItemIsDragEnabled;
    return f;
}

bool ScheduleModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                             const QModelIndex& destinationParent, int destinationChild) {
    if (sourceParent.isValid() || destinationParent.isValid() || count != 1 || sourceRow < 0 ||
        sourceRow >= rowCount() || destinationChild < 0 || destinationChild > rowCount())
        return false;
    const auto from = static_cast<std::size_t>(sourceRow);
    return edited_->move(from, targetPosition(from, static_cast<std::size_t>(destinationChild))).ok;
}

QStringList ScheduleModel::mimeTypes() const { return {QString::fromLatin1(kMimeType)}; }

QMimeData* ScheduleModel::mimeData(const QModelIndexList& indexes) const {
    if (indexes.isEmpty() || !schedule()) return nullptr;
    const int row = indexes.front().row();
    for (const QModelIndex& i : indexes)
        if (i.row() != row) return nullptr; // one node at a time
    // The position plus the node id, so a stale drag (the order changed meanwhile) is refused.
    auto* mime = new QMimeData;
    const QByteArray payload = QByteArray::number(row) + ' ' + QByteArray::number(schedule()->at(row).value);
    mime->setData(QString::fromLatin1(kMimeType), payload);
    return mime;
}

std::optional<std::size_t> ScheduleModel::decodePosition(const QMimeData* data) const {
    if (!data || !schedule() || !data->hasFormat(QString::fromLatin1(kMimeType))) return {};
    const QList<QByteArray> parts = data->data(QString::fromLatin1(kMimeType)).split(' ');
    if (parts.size() != 2) return {};
    bool okRow = false, okNode = false;
    const qulonglong row = parts[0].toULongLong(&okRow);
    const int node = parts[1].toInt(&okNode);
    if (!okRow || !okNode || row >= size() || schedule()->at(row).value != node) return {};
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
    return to && edited_->move(from, *to).ok;
}
