// The Recompute view's points as a table (budget or plan, peak, extra FLOPs, saved bytes),
// sortable by the raw numbers (Qt::UserRole) through a QSortFilterProxyModel.
#pragma once
#include "recompute/recomputepoints.h"

#include <QAbstractTableModel>

class RecomputeTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Point, Peak, ExtraFlops, ExtraPercent, Saved, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int IndexRole = Qt::UserRole + 1; // index into the points

    using QAbstractTableModel::QAbstractTableModel;
    void setPoints(const RecomputePoints& points);
    const RecomputePoints& points() const { return points_; }
    // The byte units changed: Peak and Saved read anew (dataChanged).
    void refreshBytes();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    RecomputePoints points_;
};
