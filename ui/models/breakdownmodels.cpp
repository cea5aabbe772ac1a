#include "models/breakdownmodels.h"

#include "util/text.h"
#include "util/units.h"

#include <algorithm>

QString shareText(std::int64_t part, std::int64_t total) {
    if (total <= 0) return QStringLiteral("—");
    return QString::number(100.0 * static_cast<double>(part) / static_cast<double>(total), 'f', 1) %
           QStringLiteral(" %");
}

namespace {
QVariant rightAligned() { return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter)); }
} // namespace

// ---- roles

RoleBreakdownModel::RoleBreakdownModel(QObject* parent) : QAbstractTableModel(parent) {}

void RoleBreakdownModel::setLive(const fxmem::Attribution* attribution, std::span<const fxmem::LiveStorage> live) {
    std::vector<fxmem::Attribution::Group> next =
        attribution ? attribution->by_role(live) : std::vector<fxmem::Attribution::Group>{};
    total_ = 0;
    for (const auto& g : next) total_ += g.bytes;
    // By difference, rows keyed by role: a role that holds nothing goes, a new one is appended,
    // the others change in place (the proxy sorts them).
    std::vector<std::uint8_t> kept(groups_.size(), 0);
    std::vector<fxmem::Attribution::Group> added;
    for (auto& g : next) {
        const auto at = std::find_if(groups_.begin(), groups_.end(), [&](const auto& o) { return o.key == g.key; });
        if (at == groups_.end()) {
            added.push_back(std::move(g));
            continue;
        }
        const auto row = static_cast<int>(at - groups_.begin());
        kept[static_cast<std::size_t>(row)] = 1;
        *at = std::move(g);
    }
    for (int row = static_cast<int>(groups_.size()) - 1; row >= 0; --row) {
        if (kept[static_cast<std::size_t>(row)]) continue;
        beginRemoveRows({}, row, row);
        groups_.erase(groups_.begin() + row);
        endRemoveRows();
    }
    // Shares move with the total: every remaining row's numbers may have changed.
    if (!groups_.empty()) emit dataChanged(index(0, 0), index(static_cast<int>(groups_.size()) - 1, ColumnCount - 1));
    if (!added.empty()) {
        const auto first = static_cast<int>(groups_.size());
        beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
        for (auto& g : added) groups_.push_back(std::move(g));
        endInsertRows();
    }
}

int RoleBreakdownModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(groups_.size());
}
int RoleBreakdownModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RoleBreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case RoleColumn: return tr("Role");
    case BytesColumn: return tr("Bytes");
    case ShareColumn: return tr("Share");
    case StoragesColumn: return tr("Storages");
    }
    return {};
}

QVariant RoleBreakdownModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const auto& g = groups_[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case RoleColumn: return toQString(g.key);
        case BytesColumn: return formatBytes(g.bytes);
        case ShareColumn: return shareText(g.bytes, total_);
        case StoragesColumn: return QString::number(g.storages);
        }
        return {};
    case Qt::ToolTipRole: return tr("%L1 bytes in %L2 storages").arg(g.bytes).arg(g.storages);
    case Qt::TextAlignmentRole: return index.column() == RoleColumn ? QVariant() : rightAligned();
    case SortRole:
        if (index.column() == RoleColumn) return toQString(g.key);
        if (index.column() == StoragesColumn) return g.storages;
        return QVariant::fromValue<qint64>(g.bytes);
    case BytesRole: return QVariant::fromValue<qint64>(g.bytes);
    case KeyRole: return toQString(g.key);
    }
    return {};
}

// ---- modules

ModuleBreakdownModel::ModuleBreakdownModel(QObject* parent) : QAbstractItemModel(parent) {}

void RoleBreakdownModel::refreshBytes() {
    if (!groups_.empty()) emit dataChanged(index(0, BytesColumn), index(rowCount() - 1, BytesColumn));
}

void ModuleBreakdownModel::refreshBytes() {
    if (!tree_) return;
    emit dataChanged(index(0, BytesColumn), index(0, BytesColumn));
    const fxmem::ModuleTree& tree = *tree_;
    for (std::uint32_t m = 0; m < tree.size(); ++m)
        if (const auto& children = tree[m].children; !children.empty())
            emit dataChanged(indexOf(children.front(), BytesColumn), indexOf(children.back(), BytesColumn));
}

void ModuleBreakdownModel::setRootName(const QString& name) {
    if (name == rootName_) return;
    rootName_ = name;
    if (tree_) emit dataChanged(index(0, ModuleColumn), index(0, ModuleColumn));
}

void ModuleBreakdownModel::setLive(std::shared_ptr<const fxmem::Attribution> attribution,
                                   std::span<const fxmem::LiveStorage> live) {
    fxmem::Attribution::ModuleTotals totals =
        attribution ? attribution->module_totals(live) : fxmem::Attribution::ModuleTotals{};
    const fxmem::ModuleTree* tree = attribution ? &attribution->tree() : nullptr;
    setModules(std::shared_ptr<const fxmem::ModuleTree>(std::move(attribution), tree), std::move(totals));
}

void ModuleBreakdownModel::setModules(std::shared_ptr<const fxmem::ModuleTree> tree,
                                      fxmem::Attribution::ModuleTotals totals) {
    const bool newTree = tree != tree_;
    if (newTree) {
        beginResetModel();
        tree_ = std::move(tree);
        row_.clear();
        if (tree_) {
            row_.assign(tree_->size(), 0);
            for (std::uint32_t m = 0; m < tree_->size(); ++m)
                for (std::size_t r = 0; r < (*tree_)[m].children.size(); ++r)
                    row_[(*tree_)[m].children[r]] = static_cast<std::uint32_t>(r);
        }
    }
    fxmem::Attribution::ModuleTotals old = std::move(totals_);
    const std::int64_t oldTotal = total_;
    totals_ = tree_ ? std::move(totals) : fxmem::Attribution::ModuleTotals{};
    total_ = totals_.bytes.empty() ? 0 : totals_.bytes[fxmem::ModuleTree::kRoot]; // inclusive: everything
    if (newTree) {
        endResetModel();
    } else if (tree_) {
        // The structure stays; only the modules whose numbers moved are announced, a run of
        // siblings at a time (the root's share is always 100 %, but its bytes move).
        const fxmem::ModuleTree& tree = *tree_;
        auto moved = [&](std::uint32_t m) {
            return old.bytes.size() != totals_.bytes.size() || old.bytes[m] != totals_.bytes[m] ||
                   old.storages[m] != totals_.storages[m] || oldTotal != total_;
        };
        if (moved(fxmem::ModuleTree::kRoot)) emit dataChanged(index(0, 0), index(0, ColumnCount - 1));
        for (std::uint32_t m = 0; m < tree.size(); ++m) {
            const auto& children = tree[m].children;
            for (std::size_t i = 0; i < children.size();) {
                if (!moved(children[i])) {
                    ++i;
                    continue;
                }
                std::size_t j = i;
                while (j + 1 < children.size() && moved(children[j + 1])) ++j;
                emit dataChanged(indexOf(children[i], 0), indexOf(children[j], ColumnCount - 1));
                i = j + 1;
            }
        }
    }
}

std::uint32_t ModuleBreakdownModel::moduleOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<std::uint32_t>(index.internalId() - 1) : fxmem::ModuleTree::npos;
}

QModelIndex ModuleBreakdownModel::indexOf(std::uint32_t module, int column) const {
    if (!tree_ || module >= row_.size()) return {};
    return createIndex(static_cast<int>(row_[module]), column, static_cast<quintptr>(module) + 1);
}

QModelIndex ModuleBreakdownModel::index(int row, int column, const QModelIndex& parent) const {
    if (!tree_ || row < 0 || column < 0 || column >= ColumnCount) return {};
    if (!parent.isValid()) return row == 0 ? indexOf(fxmem::ModuleTree::kRoot, column) : QModelIndex();
    if (parent.column() != 0) return {};
    const auto& children = (*tree_)[moduleOf(parent)].children;
    if (static_cast<std::size_t>(row) >= children.size()) return {};
    return indexOf(children[static_cast<std::size_t>(row)], column);
}

QModelIndex ModuleBreakdownModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || !tree_) return {};
    const std::uint32_t p = (*tree_)[moduleOf(child)].parent;
    return p == fxmem::ModuleTree::npos ? QModelIndex() : indexOf(p, 0);
}

int ModuleBreakdownModel::rowCount(const QModelIndex& parent) const {
    if (!tree_) return 0;
    if (!parent.isValid()) return 1;
    if (parent.column() != 0) return 0;
    return static_cast<int>((*tree_)[moduleOf(parent)].children.size());
}

int ModuleBreakdownModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant ModuleBreakdownModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case ModuleColumn: return tr("Module");
    case BytesColumn: return tr("Bytes");
    case ShareColumn: return tr("Share");
    case StoragesColumn: return tr("Storages");
    }
    return {};
}

QVariant ModuleBreakdownModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !tree_) return {};
    const std::uint32_t m = moduleOf(index);
    const fxmem::ModuleTree::Module& mod = (*tree_)[m];
    const std::int64_t bytes = totals_.bytes.empty() ? 0 : totals_.bytes[m];
    const std::uint32_t storages = totals_.storages.empty() ? 0 : totals_.storages[m];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ModuleColumn: {
            if (m == fxmem::ModuleTree::kRoot) return rootName_.isEmpty() ? tr("(whole graph)") : rootName_;
            // The last component under its parent, and the class when known: "attn (Attention)".
            const std::string_view name = mod.name;
            const std::size_t dot = name.rfind('.');
            const QString leaf = elided(dot == std::string_view::npos ? name : name.substr(dot + 1), 60);
            return mod.type.empty() ? leaf : leaf % QStringLiteral(" (") % elided(mod.type, 40) % QLatin1Char(')');
        }
        case BytesColumn: return formatBytes(bytes);
        case ShareColumn: return shareText(bytes, total_);
        case StoragesColumn: return QString::number(storages);
        }
        return {};
    case Qt::ToolTipRole:
        return tr("%1\n%L2 bytes in %L3 storages (its submodules included)")
            .arg(m == fxmem::ModuleTree::kRoot ? tr("the whole graph") : elided(mod.name, 400))
            .arg(bytes)
            .arg(storages);
    case Qt::TextAlignmentRole: return index.column() == ModuleColumn ? QVariant() : rightAligned();
    case SortRole:
        if (index.column() == ModuleColumn) return toQString(mod.name);
        if (index.column() == StoragesColumn) return storages;
        return QVariant::fromValue<qint64>(bytes);
    case BytesRole: return QVariant::fromValue<qint64>(bytes);
    case NameRole: return toQString(mod.name);
    case ModuleIndexRole: return m;
    }
    return {};
}

BreakdownProxy::BreakdownProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(ModuleBreakdownModel::SortRole);
    setDynamicSortFilter(true);
}

bool BreakdownProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    // Modules that hold nothing at this step are hidden (totals are inclusive: a parent holds at
    // least what its children hold, so no shown module has a hidden parent). The root stays.
    if (!sourceParent.isValid()) return true;
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    return sourceModel()->data(i, ModuleBreakdownModel::BytesRole).toLongLong() > 0;
}
