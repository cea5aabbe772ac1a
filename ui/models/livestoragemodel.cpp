#include "models/livestoragemodel.h"

#include "analysis/liveatstep.h"

#include "util/natural.h"
#include "util/text.h"
#include "util/units.h"

#include <QStringList>

#include <algorithm>

LiveStorageModel::LiveStorageModel(QObject* parent) : QAbstractTableModel(parent) {}

void LiveStorageModel::setScene(std::shared_ptr<const Scene> scene) {
    beginResetModel();
    scene_ = std::move(scene);
    ordered_.reset();
    rows_.clear();
    segment_ = -1;
    rowOf_.assign(scene_ ? scene_->file->storages.size() * 2 : 0, 0);
    step_ = -1;
    total_ = 0;
    endResetModel();
}

void LiveStorageModel::setStep(std::int64_t globalStep) {
    setLive(globalStep, scene_ ? liveAtStep(*scene_, ordered_.get(), globalStep) : LiveAtStep{});
}

void LiveStorageModel::setLive(std::int64_t globalStep, const LiveAtStep& at) {
    step_ = globalStep;
    total_ = 0;
    std::vector<Row> next;
    if (scene_ && at.where.segment >= 0) {
        const Segment& seg = scene_->segments[static_cast<std::size_t>(at.where.segment)];
        const std::int64_t offset = seg.offset;
        next.reserve(at.live.size());
        for (std::size_t i = 0; i < at.live.size(); ++i) {
            const fxmem::LiveStorage& s = at.live[i];
            // A joined backward stands on the forward outputs it keeps: they are listed too (as
            // forward storages), so the total matches the plot (profile + baseline).
            const bool baseline = i >= at.baselineBegin;
            Row r;
            r.storage = s.storage;
            r.nbytes = s.nbytes;
            const int made = madeInSegment(*scene_, at, i);
            r.segment = made >= 0 ? made : at.where.segment;
            r.allocator = s.allocator;
            r.lastUser = s.last_user;
            r.nextUser = s.next_user;
            r.freeStep = s.free_step ? *s.free_step + offset : -1;
            r.reason = s.reason;
            r.baseline = baseline;
            if (baseline && scene_->wholeStep()) {
                // What the whole step carries: named by the graph run that made it, if any.
                const fxmem::CarriedStorage& c = at.carried[i - at.baselineBegin];
                r.carry = static_cast<int>(c.kind);
                r.source = made;
            }
            next.push_back(r);
            total_ += r.nbytes;
        }
    }
    bool duplicates = false;
    if (scene_ && scene_->wholeStep() && at.baselineBegin < at.live.size()) {
        std::vector<std::int32_t> carried;
        carried.reserve(at.live.size() - at.baselineBegin);
        for (std::size_t i = at.baselineBegin; i < at.live.size(); ++i) carried.push_back(at.live[i].storage.value);
        std::sort(carried.begin(), carried.end());
        duplicates = std::adjacent_find(carried.begin(), carried.end()) != carried.end();
    }
    const bool reset = duplicates || duplicates_;
    duplicates_ = duplicates;
    applyDifference(std::move(next), scene_ ? at.where.segment : -1, reset);
}

void LiveStorageModel::applyDifference(std::vector<Row> next, int segment, bool reset) {
    const auto resetTo = [&] {
        beginResetModel();
        for (const Row& r : rows_) rowOf_[slot(r)] = 0;
        rows_ = std::move(next);
        segment_ = segment;
        last_ = {true, 0, static_cast<int>(rows_.size()), 0};
        if (scene_) rowOf_.resize(scene_->file->storages.size() * 2, 0);
        for (std::size_t i = 0; i < rows_.size(); ++i) rowOf_[slot(rows_[i])] = static_cast<std::int32_t>(i + 1);
        endResetModel();
    };
    // Another graph of a joined pair (other node ids) or nothing in common to keep: a reset.
    if (reset || !scene_ || segment != segment_ || rows_.empty() || next.empty()) return resetTo();

    // Which rows stay (updated in place when their fields moved on), which go, which are new.
    std::vector<std::uint8_t> keep(rows_.size(), 0);
    std::vector<std::pair<int, Row>> changed;
    std::vector<Row> added;
    for (const Row& r : next) {
        if (const std::int32_t at = rowOf_[slot(r)]; at > 0) {
            keep[static_cast<std::size_t>(at - 1)] = 1;
            if (!(rows_[static_cast<std::size_t>(at - 1)] == r)) changed.emplace_back(at - 1, r);
        } else {
            added.push_back(r);
        }
    }
    // Each removed range costs the sort proxy and the view a pass over their rows: past a few
    // dozen ranges, or when most rows change, one reset is cheaper.
    int ranges = 0, removed = 0;
    for (std::size_t i = 0; i < keep.size(); ++i)
        if (!keep[i]) {
            ++removed;
            if (i == 0 || keep[i - 1]) ++ranges;
        }
    constexpr int kMaxRanges = 48;
    if (ranges > kMaxRanges || static_cast<std::size_t>(removed) + added.size() > next.size()) return resetTo();

    last_ = {false, removed, static_cast<int>(added.size()), static_cast<int>(changed.size())};
    std::sort(changed.begin(), changed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < changed.size();) {
        std::size_t j = i;
        rows_[static_cast<std::size_t>(changed[j].first)] = changed[j].second;
        while (j + 1 < changed.size() && changed[j + 1].first == changed[j].first + 1) {
            ++j;
            rows_[static_cast<std::size_t>(changed[j].first)] = changed[j].second;
        }
        emit dataChanged(index(changed[i].first, 0), index(changed[j].first, ColumnCount - 1));
        i = j + 1;
    }
    // Removed ranges from the last one back, so earlier rows keep their numbers.
    for (std::size_t end = keep.size(); end > 0;) {
        if (keep[end - 1]) {
            --end;
            continue;
        }
        std::size_t begin = end - 1;
        while (begin > 0 && !keep[begin - 1]) --begin;
        beginRemoveRows({}, static_cast<int>(begin), static_cast<int>(end - 1));
        for (std::size_t i = begin; i < end; ++i) rowOf_[slot(rows_[i])] = 0;
        rows_.erase(rows_.begin() + static_cast<std::ptrdiff_t>(begin),
                    rows_.begin() + static_cast<std::ptrdiff_t>(end));
        endRemoveRows();
        end = begin;
    }
    for (std::size_t i = 0; i < rows_.size(); ++i) rowOf_[slot(rows_[i])] = static_cast<std::int32_t>(i + 1);
    if (!added.empty()) {
        const auto first = static_cast<int>(rows_.size());
        beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
        for (const Row& r : added) {
            rowOf_[slot(r)] = static_cast<std::int32_t>(rows_.size() + 1);
            rows_.push_back(r);
        }
        endInsertRows();
    }
}

int LiveStorageModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int LiveStorageModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LiveStorageModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        static const char* const names[ColumnCount] = {
            QT_TR_NOOP("Size"),      QT_TR_NOOP("Allocated by"), QT_TR_NOOP("Role"),  QT_TR_NOOP("Module"),
            QT_TR_NOOP("Why live"),  QT_TR_NOOP("Shape"),        QT_TR_NOOP("Dtype"), QT_TR_NOOP("Device"),
            QT_TR_NOOP("Last user"), QT_TR_NOOP("Storage"),
        };
        return tr(names[section]);
    }
    if (role == Qt::TextAlignmentRole && section == SizeColumn)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

const fxmem::Tensor* LiveStorageModel::tensorOf(const Row& row) const {
    if (!row.allocator.valid()) return nullptr;
    const fxmem::Graph& g = scene_->segments[static_cast<std::size_t>(row.segment)].analysis->graph();
    for (const fxmem::Tensor& t : g.node_tensors(row.allocator))
        if (t.storage == row.storage) return &t;
    return nullptr;
}

QString LiveStorageModel::reasonText(const Row& row) const {
    const Segment& seg = scene_->segments[static_cast<std::size_t>(row.segment)];
    const fxmem::Graph& g = seg.analysis->graph();
    auto name = [&](fxmem::NodeId n) { return elided(g.node(n).name); };
    if (row.carry >= 0) {
        const QString from =
            row.source >= 0 ? elided(scene_->segmentName(static_cast<std::size_t>(row.source))) : QString();
        switch (static_cast<fxmem::CarryKind>(row.carry)) {
        case fxmem::CarryKind::Parameter: return tr("parameter: lives through the whole step");
        case fxmem::CarryKind::OptimizerState: return tr("optimizer state: lives through the whole step");
        case fxmem::CarryKind::Saved: return tr("saved by %1 for its backward").arg(from);
        case fxmem::CarryKind::Gradient: return tr("gradient from %1, kept for the optimizer").arg(from);
        case fxmem::CarryKind::Output: return tr("output of %1 (the loss), kept to the end of the step").arg(from);
        }
    }
    if (row.baseline) return tr("forward output saved for the backward");
    switch (row.reason) {
    case fxmem::LiveReason::WaitingForUse:
        if (row.nextUser.valid() && row.nextUser != row.lastUser)
            return tr("needed by %1 (step %2); freed after %3 (step %4)")
                .arg(name(row.nextUser))
                .arg(scene_->globalStep(row.segment, row.nextUser))
                .arg(name(row.lastUser))
                .arg(row.freeStep);
        return tr("waiting for its last user %1; freed at step %2")
            .arg(row.lastUser.valid() ? name(row.lastUser) : QStringLiteral("?"))
            .arg(row.freeStep);
    case fxmem::LiveReason::GraphOutput: return tr("graph output: kept to the end");
    case fxmem::LiveReason::NotReleasable:
        return seg.analysis->is_backward_of_pair() && !g.node(row.allocator).name.starts_with("primals")
                   ? tr("held for the forward (do-not-delete): never freed")
                   : tr("primal input: never freed");
    case fxmem::LiveReason::NeverUsed: return tr("never used: never freed");
    }
    return {};
}

void LiveStorageModel::refreshBytes() {
    if (!rows_.empty()) emit dataChanged(index(0, SizeColumn), index(rowCount() - 1, SizeColumn));
}

QString LiveStorageModel::text(const Row& row, int column) const {
    const fxmem::GraphFile& f = *scene_->file;
    const fxmem::Graph& g = scene_->segments[static_cast<std::size_t>(row.segment)].analysis->graph();
    switch (column) {
    case StorageColumn: return QString::number(f.storages[row.storage.index()].file_id);
    case SizeColumn: return formatBytes(row.nbytes);
    case DeviceColumn: return elided(f.device(row.storage));
    case DtypeColumn: {
        const fxmem::Tensor* t = tensorOf(row);
        return t ? elided(f.dtypes[t->dtype]) : QString();
    }
    case ShapeColumn: {
        const fxmem::Tensor* t = tensorOf(row);
        if (!t) return {};
        QStringList dims;
        for (std::int64_t d : g.shape(*t)) dims << QString::number(d);
        return QLatin1Char('[') % dims.join(QStringLiteral(", ")) % QLatin1Char(']');
    }
    case AllocatorColumn: return row.allocator.valid() ? elided(g.node(row.allocator).name) : QString();
    case LastUserColumn: return row.lastUser.valid() ? elided(g.node(row.lastUser).name) : tr("—");
    case ReasonColumn: return reasonText(row);
    case RoleColumn: return toQString(fxmem::to_string(attribution(row.segment).role(row.storage)));
    case ModuleColumn: {
        const fxmem::Attribution& a = attribution(row.segment);
        const QString name =
            scene_->moduleName(static_cast<std::size_t>(row.segment), a.tree()[a.owner(row.storage)].name);
        return name.isEmpty() ? tr("(root)") : elided(name);
    }
    }
    return {};
}

const fxmem::Attribution& LiveStorageModel::attribution(int segment) const {
    return *scene_->segments[static_cast<std::size_t>(segment)].attribution;
}

QVariant LiveStorageModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& r = rows_[static_cast<std::size_t>(index.row())];
    const int c = index.column();
    switch (role) {
    case Qt::DisplayRole: return text(r, c);
    case Qt::ToolTipRole:
        if (c == SizeColumn) return tr("%L1 bytes").arg(r.nbytes);
        return text(r, c);
    case Qt::TextAlignmentRole:
        if (c == SizeColumn || c == StorageColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
        return {};
    case SortRole:
        if (c == SizeColumn) return QVariant::fromValue<qint64>(r.nbytes);
        if (c == StorageColumn) return QVariant::fromValue<qint64>(scene_->file->storages[r.storage.index()].file_id);
        return text(r, c);
    case BytesRole: return QVariant::fromValue<qint64>(r.nbytes);
    case SegmentRole: return r.segment;
    case AllocatorRole: return r.allocator.value;
    case StorageRole: return r.storage.value;
    case FilterRole: {
        QString all;
        for (int col = 0; col < ColumnCount; ++col) all += text(r, col) % QLatin1Char('\n');
        return all;
    }
    }
    return {};
}

LiveStorageProxy::LiveStorageProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(LiveStorageModel::SortRole);
    setFilterRole(LiveStorageModel::FilterRole);
}

void LiveStorageProxy::setFilterText(const QString& text) {
    if (filter_ == text) return;
    filter_ = text;
    invalidateFilter();
}

void LiveStorageProxy::setModuleFilter(const QString& module) {
    if (module_ == module && module_.isNull() == module.isNull()) return;
    module_ = module;
    resolveModule();
    invalidateFilter();
}

void LiveStorageProxy::resolveModule() const {
    moduleIndex_.clear();
    resolvedFor_ = live_ ? live_->scene().get() : nullptr;
    if (!resolvedFor_ || module_.isNull()) return;
    const Scene& scene = *live_->scene();
    for (std::size_t s = 0; s < scene.segments.size(); ++s) moduleIndex_.push_back(scene.findModule(s, module_));
}

bool LiveStorageProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (!module_.isNull() && live_) {
        // A new scene has other module trees: find the module in them once.
        if (resolvedFor_ != live_->scene().get()) resolveModule();
        const LiveStorageModel::Row& r = live_->row(sourceRow);
        const auto seg = static_cast<std::size_t>(r.segment);
        if (seg >= moduleIndex_.size() || moduleIndex_[seg] == fxmem::ModuleTree::npos) return false;
        const fxmem::Attribution& a = live_->attribution(r.segment);
        if (!a.tree().contains(moduleIndex_[seg], a.owner(r.storage))) return false;
    }
    if (filter_.isEmpty()) return true;
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    return sourceModel()->data(i, LiveStorageModel::FilterRole).toString().contains(filter_, Qt::CaseInsensitive);
}

void LiveStorageProxy::setSourceModel(QAbstractItemModel* model) {
    live_ = qobject_cast<const LiveStorageModel*>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

std::string_view LiveStorageModel::nodeName(const Row& row, fxmem::NodeId node) const {
    if (!node.valid()) return {};
    return scene_->segments[static_cast<std::size_t>(row.segment)].analysis->graph().node(node).name;
}

bool LiveStorageProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    if (!live_) return QSortFilterProxyModel::lessThan(left, right);
    const LiveStorageModel::Row &a = live_->row(left.row()), &b = live_->row(right.row());
    switch (left.column()) {
    case LiveStorageModel::SizeColumn:
        // Ties by storage so that equal sizes keep a stable, meaningful order.
        return a.nbytes != b.nbytes ? a.nbytes < b.nbytes : a.storage.value > b.storage.value;
    case LiveStorageModel::AllocatorColumn:
        return naturalLess(live_->nodeName(a, a.allocator), live_->nodeName(b, b.allocator));
    case LiveStorageModel::LastUserColumn:
        return naturalLess(live_->nodeName(a, a.lastUser), live_->nodeName(b, b.lastUser));
    case LiveStorageModel::StorageColumn: return QSortFilterProxyModel::lessThan(left, right);
    default:
        // Text columns: numbers inside (shapes, devices) by value.
        return naturalLess(live_->data(left, LiveStorageModel::SortRole).toString(),
                           live_->data(right, LiveStorageModel::SortRole).toString());
    }
}
