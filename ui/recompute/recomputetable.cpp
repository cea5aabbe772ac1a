#include "recompute/recomputetable.h"

#include "util/units.h"

#include <QFont>
#include <QLocale>

using Kind = RecomputePoint::Kind;

void RecomputeTableModel::setPoints(const RecomputePoints& points) {
    beginResetModel();
    points_ = points;
    endResetModel();
}

void RecomputeTableModel::refreshBytes() {
    if (rowCount() > 0) emit dataChanged(index(0, Peak), index(rowCount() - 1, Saved));
}

int RecomputeTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(points_.points.size());
}

int RecomputeTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RecomputeTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const RecomputePoint& p = points_.points[static_cast<std::size_t>(index.row())];
    if (role == IndexRole) return index.row();
    if (role == Qt::TextAlignmentRole && index.column() != Point)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && p.lowest) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole && p.lowest) return tr("The lowest peak");
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort) return {};
    switch (index.column()) {
    case Point:
        if (sort) return static_cast<int>(p.kind) * 10 + (p.kind == Kind::Budget ? 1.0 - p.budget : 0.0);
        return p.kind == Kind::Budget ? tr("budget %1").arg(QString::fromStdString(budgetText(p.budget)))
               : p.kind == Kind::Plan ? tr("fxmem plan")
               : p.kind == Kind::Edit ? QString::fromStdString(p.label)
                                      : tr("frontier");
    case Peak: return sort ? QVariant(static_cast<qlonglong>(p.peak)) : QVariant(formatBytes(p.peak));
    case ExtraFlops:
        return sort ? QVariant(static_cast<qlonglong>(p.extraFlops))
                    : QVariant(QLocale().toString(static_cast<qlonglong>(p.extraFlops)));
    case ExtraPercent: {
        const double pc = points_.percent(p.extraFlops);
        return sort ? QVariant(pc) : QVariant(QStringLiteral("%1 %").arg(pc, 0, 'f', 1));
    }
    case Saved:
        if (sort) return static_cast<qlonglong>(p.savedBytes);
        return p.savedBytes < 0 ? QVariant(QStringLiteral("—")) : QVariant(formatBytes(p.savedBytes));
    }
    return {};
}

QVariant RecomputeTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    // "Peak", not "Pair peak": the five columns fit the side dock of a 1366x768 screen whole.
    if (role == Qt::ToolTipRole && section == Peak) return tr("The pair's peak: its forward's and backward's");
    if (role != Qt::DisplayRole) return {};
    switch (section) {
    case Point: return tr("Partition");
    case Peak: return tr("Peak");
    case ExtraFlops: return tr("Extra FLOPs");
    case ExtraPercent: return tr("Extra %");
    case Saved: return tr("Saved");
    }
    return {};
}
