// The moved nodes of two orders (fxmem::compare_orders) as a table for the Compare panel.
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/compare.h>
#include <fxmem/ids.h>

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <vector>

using OrderComparison = fxmem::OrderComparison;

// The moved nodes as a table: Node, position in A, position in B, bytes allocated, effect.
class CompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NodeColumn, PositionAColumn, PositionBColumn, AllocatesColumn, EffectColumn, ColumnCount };
    enum Roles {
        NodeIdRole = Qt::UserRole, // int
        EffectRole,                // qlonglong, or invalid without an effect
        BytesRole,                 // qlonglong
        // Sorts the column: the name, the positions, the bytes; for the effect its size |effect|,
        // -1 without one, so that a descending sort (how the list opens) puts the moves that
        // change the peak most first and those that change nothing after them.
        SortRole,
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setComparison(std::shared_ptr<const GraphAnalysis> analysis,
                       std::shared_ptr<const OrderComparison> comparison);
    const OrderComparison* comparison() const { return comparison_.get(); }
    // The byte units changed: Allocates and Effect read anew (dataChanged).
    void refreshBytes();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const GraphAnalysis> analysis_;
    std::shared_ptr<const OrderComparison> comparison_;
};
