#include "schedule/ordercompare.h"

#include "util/text.h"
#include "util/units.h"

#include <fxmem/incremental.h>
#include <fxmem/profile_steps.h>

#include <algorithm>

namespace {

// Counted bytes each node allocates when it runs (0 for placeholders, get_attr and output).
std::vector<std::int64_t> freshBytes(const GraphAnalysis& a) {
    const fxmem::Graph& g = a.graph();
    std::vector<std::int64_t> out(g.size(), 0);
    for (std::size_t n = 0; n < g.size(); ++n) {
        const fxmem::NodeId id(static_cast<std::int32_t>(n));
        if (!fxmem::has_profile_points(g.node(id).op)) continue;
        for (fxmem::StorageId s : a.alias().fresh_of(id))
            if (a.counted()[s.index()]) out[n] += a.file().nbytes(s);
    }
    return out;
}

std::vector<std::int64_t> profileOf(const GraphAnalysis& a, const fxmem::IncrementalSchedule& s,
                                    const std::vector<std::int64_t>& fresh) {
    const std::vector<std::int64_t> after = s.current();
    std::vector<std::int64_t> out;
    out.reserve(1 + 2 * after.size());
    out.push_back(s.start());
    std::int64_t previous = s.start();
    for (std::size_t p = 0; p < after.size(); ++p) {
        const fxmem::NodeId node = s.at(p);
        if (fxmem::has_profile_points(a.graph().node(node).op)) {
            out.push_back(previous + fresh[node.index()]);
            out.push_back(after[p]);
        }
        previous = after[p];
    }
    return out;
}

std::size_t firstMax(const std::vector<std::int64_t>& v) {
    return v.empty() ? 0 : static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

// Marks the elements of a longest strictly increasing subsequence of `seq` (patience sorting).
std::vector<std::uint8_t> longestIncreasing(const std::vector<std::size_t>& seq) {
    std::vector<std::size_t> tails;          // indices into seq: the smallest tail of each length
    std::vector<std::size_t> previous(seq.size(), SIZE_MAX);
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const auto it = std::lower_bound(tails.begin(), tails.end(), seq[i],
                                         [&](std::size_t t, std::size_t v) { return seq[t] < v; });
        if (it != tails.begin()) previous[i] = *(it - 1);
        if (it == tails.end()) tails.push_back(i);
        else *it = i;
    }
    std::vector<std::uint8_t> in(seq.size(), 0);
    for (std::size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = previous[i]) in[i] = 1;
    return in;
}

} // namespace

std::vector<std::int64_t> profileOfOrder(const GraphAnalysis& a, const std::vector<fxmem::NodeId>& order) {
    const fxmem::IncrementalSchedule s(a.file(), a.graph(), a.alias(), a.releasable(), a.counted(), order);
    return profileOf(a, s, freshBytes(a));
}

OrderComparison compareOrders(const GraphAnalysis& a, const std::vector<fxmem::NodeId>& orderA,
                              const std::vector<fxmem::NodeId>& orderB, std::size_t maxEffects, std::size_t maxWork) {
    const std::vector<std::int64_t> fresh = freshBytes(a);
    fxmem::IncrementalSchedule sa(a.file(), a.graph(), a.alias(), a.releasable(), a.counted(), orderA);
    const fxmem::IncrementalSchedule sb(a.file(), a.graph(), a.alias(), a.releasable(), a.counted(), orderB);
    OrderComparison out;
    out.profileA = profileOf(a, sa, fresh);
    out.profileB = profileOf(a, sb, fresh);
    out.peakA = sa.peak();
    out.peakB = sb.peak();
    out.peakStepA = firstMax(out.profileA);
    out.peakStepB = firstMax(out.profileB);

    // B's positions read in A's order; the nodes on a longest increasing run kept their order.
    const std::size_t n = orderA.size();
    std::vector<std::size_t> seq(n);
    for (std::size_t i = 0; i < n; ++i) seq[i] = sb.position_of(orderA[i]);
    const std::vector<std::uint8_t> kept = longestIncreasing(seq);
    std::vector<std::uint8_t> keptNode(n, 0);
    for (std::size_t i = 0; i < n; ++i) keptNode[orderA[i].index()] = kept[i];

    // The nearest unmoved node before each position of B (its anchor in A).
    std::vector<fxmem::NodeId> anchor(n);
    fxmem::NodeId last;
    for (std::size_t p = 0; p < n; ++p) {
        anchor[p] = last;
        if (keptNode[orderB[p].index()]) last = orderB[p];
    }
    std::size_t work = 0;  // positions shifted by the scoring moves so far
    for (std::size_t i = 0; i < n; ++i) {
        if (kept[i]) continue;
        const fxmem::NodeId node = orderA[i];
        OrderComparison::Moved m{node, i, seq[i], fresh[node.index()], std::nullopt};
        if (out.moved.size() < maxEffects && work < maxWork) {
            const std::size_t from = sa.position_of(node);
            const fxmem::NodeId before = anchor[seq[i]];
            std::size_t to = 0;
            if (before.valid()) {
                const std::size_t pa = sa.position_of(before);
                to = pa < from ? pa + 1 : pa;
            }
            const auto range = sa.legal_range(from);
            to = std::clamp(to, range.lo, range.hi);
            work += 2 * (to > from ? to - from : from - to) + 1;
            if (to == from) {
                m.effect = 0;
            } else if (sa.check_move(from, to).ok) {
                sa.move(from, to);
                m.effect = sa.peak() - out.peakA;
                sa.move(to, from);  // back to A exactly: the others kept their relative order
            }
        }
        out.moved.push_back(m);
    }
    std::stable_sort(out.moved.begin(), out.moved.end(), [](const auto& x, const auto& y) {
        if (x.effect.has_value() != y.effect.has_value()) return x.effect.has_value();
        if (x.effect && *x.effect != *y.effect) return *x.effect < *y.effect;
        return x.allocates > y.allocates;
    });
    return out;
}

void CompareModel::setComparison(std::shared_ptr<const GraphAnalysis> analysis,
                                 std::shared_ptr<const OrderComparison> comparison) {
    beginResetModel();
    analysis_ = std::move(analysis);
    comparison_ = std::move(comparison);
    endResetModel();
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
        case PositionAColumn: return QString::number(m.positionA);
        case PositionBColumn: return QString::number(m.positionB);
        case AllocatesColumn: return formatBytes(m.allocates);
        case EffectColumn: return m.effect ? formatDelta(*m.effect, comparison_->peakA) : QStringLiteral("—");
        default: return {};
        }
    case Qt::TextAlignmentRole:
        return index.column() == NodeColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case NodeIdRole: return m.node.value;
    case EffectRole: return m.effect ? QVariant(static_cast<qlonglong>(*m.effect)) : QVariant();
    case BytesRole: return static_cast<qlonglong>(m.allocates);
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
