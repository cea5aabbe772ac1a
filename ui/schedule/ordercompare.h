// Compare two complete orders of one graph: both memory curves, and the nodes that moved.
//
// "Moved" is the smallest set of nodes whose moves explain the difference: the nodes outside a
// longest common subsequence of the two orders (for permutations, a longest increasing
// subsequence of B's positions read in A's order, O(N log N)). A node that only shifted because
// another one jumped over it is not listed.
//
// Effect on the peak of a moved node: how A's MemoryTracker peak changes when that node alone
// moves in A to where B puts it, i.e. just after its nearest unmoved predecessor in B (the first
// position when it has none), clamped to its legal range in A; negative = the move alone lowers
// A's peak. Scored with the incremental scorer (move, read the peak, move back), so the cost is
// O(|distance| + log N) per node; past `maxEffects` moved nodes, or once the moves scored so far
// have shifted `maxWork` positions in all, the rest get no effect (so a comparison stays a few
// tens of milliseconds on any graph: it is redone after each edit while shown).
// The list is sorted by effect (most lowering first; nodes without an effect last), then by the
// bytes the node allocates (descending).
#pragma once
#include "analysis/graphanalysis.h"

#include <fxmem/ids.h>

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

struct OrderComparison {
    struct Moved {
        fxmem::NodeId node;
        std::size_t positionA = 0, positionB = 0;
        std::int64_t allocates = 0;           // counted bytes the node allocates
        std::optional<std::int64_t> effect;   // peak change of A, see above
    };
    std::vector<std::int64_t> profileA, profileB;  // build_memory_profile layout (1 + 2K points)
    std::int64_t peakA = 0, peakB = 0;
    std::size_t peakStepA = 0, peakStepB = 0;      // first profile index at the peak
    std::vector<Moved> moved;
};

// Both orders must be complete legal orders of analysis' graph (fxmem::Error otherwise).
OrderComparison compareOrders(const GraphAnalysis& analysis, const std::vector<fxmem::NodeId>& a,
                              const std::vector<fxmem::NodeId>& b, std::size_t maxEffects = 5000,
                              std::size_t maxWork = 4'000'000);

// The memory curve of an order in build_memory_profile's layout (what the timeline draws).
std::vector<std::int64_t> profileOfOrder(const GraphAnalysis& analysis, const std::vector<fxmem::NodeId>& order);

// The moved nodes as a table: Node, position in A, position in B, bytes allocated, effect.
class CompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NodeColumn, PositionAColumn, PositionBColumn, AllocatesColumn, EffectColumn, ColumnCount };
    enum Roles {
        NodeIdRole = Qt::UserRole,  // int
        EffectRole,                 // qlonglong, or invalid without an effect
        BytesRole,                  // qlonglong
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setComparison(std::shared_ptr<const GraphAnalysis> analysis, std::shared_ptr<const OrderComparison> comparison);
    const OrderComparison* comparison() const { return comparison_.get(); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const GraphAnalysis> analysis_;
    std::shared_ptr<const OrderComparison> comparison_;
};
