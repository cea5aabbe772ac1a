// What holds the memory at one step, grouped (what the breakdown panel shows):
//  - RoleBreakdownModel: a flat table of storage roles (bytes, % of the step, storages); a new
//    step removes, appends and updates rows by role, no reset;
//  - ModuleBreakdownModel: a module tree (the graph's, or the whole step's) with each module's inclusive bytes, % of
//  the
//    step and storages. Its structure changes only with the scene segment; a new step updates
//    the numbers in place (dataChanged for the modules whose numbers moved), so expansion and
//    selection survive scrubbing;
//  - BreakdownProxy: sorts by bytes and hides modules that hold nothing at the step.
// Both models are fed the live set of a step (fxmem::LiveStorage, as LiveSetIndex::live_at gives
// it) and an Attribution; the groups add up to the step's total exactly.
#pragma once
#include <fxmem/attribution.h>

#include <QAbstractItemModel>
#include <QSortFilterProxyModel>

#include <memory>
#include <span>
#include <vector>

class RoleBreakdownModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RoleColumn, BytesColumn, ShareColumn, StoragesColumn, ColumnCount };
    enum Roles { SortRole = Qt::UserRole, BytesRole, KeyRole };
    explicit RoleBreakdownModel(QObject* parent = nullptr);

    void setLive(const fxmem::Attribution* attribution, std::span<const fxmem::LiveStorage> live);
    std::int64_t total() const { return total_; }
    const std::vector<fxmem::Attribution::Group>& groups() const { return groups_; }
    // The byte units changed: the Bytes column reads anew (dataChanged).
    void refreshBytes();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<fxmem::Attribution::Group> groups_;
    std::int64_t total_ = 0;
};

class ModuleBreakdownModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { ModuleColumn, BytesColumn, ShareColumn, StoragesColumn, ColumnCount };
    enum Roles {
        SortRole = Qt::UserRole, // bytes for the number columns, the name otherwise
        BytesRole,               // qint64 inclusive bytes
        NameRole,                // QString: the module's qualified name ("" = root)
        ModuleIndexRole,         // uint: the ModuleTree index
    };
    explicit ModuleBreakdownModel(QObject* parent = nullptr);

    // A new tree (the attribution of another segment) resets the model; the same one updates numbers.
    void setLive(std::shared_ptr<const fxmem::Attribution> attribution, std::span<const fxmem::LiveStorage> live);
    // Any module tree with its inclusive totals (the whole step's: fxmem::StepModules, whose tree
    // names modules from the model's root); the same rule: a new tree resets, the same one updates.
    void setModules(std::shared_ptr<const fxmem::ModuleTree> tree, fxmem::Attribution::ModuleTotals totals);
    // What the root row stands for: "(whole graph)" by default; in the whole step, the running
    // graph and what it carries.
    void setRootName(const QString& name);
    std::int64_t total() const { return total_; }
    std::int64_t bytes(std::uint32_t module) const { return totals_.bytes.empty() ? 0 : totals_.bytes[module]; }
    const fxmem::ModuleTree* tree() const { return tree_.get(); }
    QModelIndex indexOf(std::uint32_t module, int column = 0) const;
    // The byte units changed: every module's Bytes cell reads anew (dataChanged, sibling runs).
    void refreshBytes();

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::uint32_t moduleOf(const QModelIndex& index) const; // internalId - 1; the root for the invisible root
    std::shared_ptr<const fxmem::ModuleTree> tree_;
    std::vector<std::uint32_t> row_; // per module: its row under its parent
    fxmem::Attribution::ModuleTotals totals_;
    std::int64_t total_ = 0;
    QString rootName_;
};

class BreakdownProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit BreakdownProxy(QObject* parent = nullptr);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
};

// "12.5 %" of a total; "—" when the total is 0.
QString shareText(std::int64_t part, std::int64_t total);
