#include "schedule/ordercompare.h"

#include "util/text.h"
#include "util/units.h"

#include <cstdlib>

void CompareModel::setComparison(std::shared_ptr<const GraphAnalysis> analysis,
                                 std::shared_ptr<const OrderComparison> comparison) {
    beginResetModel();
    analysis_ = std::move(analysis);
    comparison_ = std::move(comparison);
    endResetModel();
}

void CompareModel::refreshBytes() {
    if (rowCount() > 0) emit dataChanged(index(0, AllocatesColumn), index(rowCount() - 1, EffectColumn));
}

int CompareModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !comparison_ ? 0 : static_cast<int>(comparison_->moved.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant CompareModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !comparison_ || !analysis_) return {};
    const OrderComparison::Moved& m = comparison_->moved[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NodeColumn: return elided(analysis_->graph().node(m.node).name);
        case PositionAColumn: return QString::number(m.position_a);
        case PositionBColumn: return QString::number(m.position_b);
        case AllocatesColumn: return formatBytes(m.allocates);
        case EffectColumn: return m.effect ? formatDelta(*m.effect, comparison_->peak_a) : QStringLiteral("—");
        default: return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() == NodeColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case NodeIdRole: return m.node.value;
    case EffectRole: return m.effect ? QVariant(static_cast<qlonglong>(*m.effect)) : QVariant();
    case BytesRole: return static_cast<qlonglong>(m.allocates);
    case SortRole:
        switch (index.column()) {
        case NodeColumn: return elided(analysis_->graph().node(m.node).name);
        case PositionAColumn: return static_cast<qulonglong>(m.position_a);
        case PositionBColumn: return static_cast<qulonglong>(m.position_b);
        case AllocatesColumn: return static_cast<qlonglong>(m.allocates);
        case EffectColumn: return m.effect ? static_cast<qlonglong>(std::llabs(*m.effect)) : qlonglong(-1);
        default: return {};
        }
    default: return {};
    }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case PositionAColumn: return tr("Position in order A");
        case PositionBColumn: return tr("Position in order B");
        case AllocatesColumn: return tr("Bytes the node allocates when it runs");
        case EffectColumn:
            return tr("How A's peak changes if only this node moves in A to where B puts it (just after its nearest "
                      "unmoved predecessor in B); negative lowers the peak");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case NodeColumn: return tr("Node");
    case PositionAColumn: return tr("Pos A");
    case PositionBColumn: return tr("Pos B");
    case AllocatesColumn: return tr("Allocates");
    case EffectColumn: return tr("Effect on peak A");
    default: return {};
    }
}
