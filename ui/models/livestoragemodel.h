// The storages live at one step of a scene: one row per storage with its size, device, dtype and
// shape (from the allocator's output tensor), allocator, last user and why it is still live.
// A new step updates the rows by difference: storages freed are removed, new ones appended,
// changed ones updated in place (dataChanged), so the sort proxy, the selection and the scroll
// position survive a scrub; a jump that changes most rows resets the model instead.
#pragma once
#include "analysis/liveatstep.h"
#include "analysis/orderedlive.h"
#include "loading/scene.h"

#include <fxmem/liveset.h>

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>
#include <vector>

class LiveStorageModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Most telling first: how big, who allocated it, why it is still there.
    enum Column {
        SizeColumn,
        AllocatorColumn,
        RoleColumn,
        ModuleColumn,
        ReasonColumn,
        ShapeColumn,
        DtypeColumn,
        DeviceColumn,
        LastUserColumn,
        StorageColumn,
        ColumnCount
    };
    enum Roles {
        SortRole = Qt::UserRole, // numbers for numeric columns, text otherwise
        BytesRole,               // qint64 size
        SegmentRole,             // int: the scene segment of the allocator
        AllocatorRole,           // int: the allocator's NodeId value
        StorageRole,             // int: the StorageId value
        FilterRole,              // every column's text, for the filter box
    };

    struct Row {
        fxmem::StorageId storage;
        std::int64_t nbytes = 0;
        int segment = 0; // whose graph names the allocator and users
        fxmem::NodeId allocator, lastUser, nextUser;
        std::int64_t freeStep = -1; // global; -1: never
        fxmem::LiveReason reason = fxmem::LiveReason::WaitingForUse;
        bool baseline = false; // a forward output kept for the backward (joined pair), or carried (whole step)
        int carry = -1;        // whole step: the fxmem::CarryKind of a carried storage
        int source = -1;       // whole step: the segment whose graph made it (saved, gradient, output)
        friend bool operator==(const Row&, const Row&) = default;
    };

    explicit LiveStorageModel(QObject* parent = nullptr);

    void setScene(std::shared_ptr<const Scene> scene);
    // The live-set index of an edited schedule of the scene's single graph; nullptr: the graph's
    // own order. Takes effect at the next setStep().
    void setOrderedLive(std::shared_ptr<const OrderedLive> live) { ordered_ = std::move(live); }
    const OrderedLive* orderedLive() const { return ordered_.get(); }
    // Fills the rows for a global step; outside the scene the model is empty.
    void setStep(std::int64_t globalStep);
    // The same with the live set already worked out (ViewState::liveAtCursor shares it).
    void setLive(std::int64_t globalStep, const LiveAtStep& at);
    // How the last step was applied: by difference (rows removed, inserted, changed) or a reset.
    struct Update {
        bool reset = true;
        int removed = 0, inserted = 0, changed = 0;
    };
    const Update& lastUpdate() const { return last_; }
    std::int64_t step() const { return step_; }
    std::int64_t totalBytes() const { return total_; }
    // The byte units changed: the Size column reads anew (dataChanged; the rows stay).
    void refreshBytes();
    const Row& row(int r) const { return rows_[static_cast<std::size_t>(r)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    QString reasonText(const Row& row) const;
    // The full name of a node of the row's graph (for sorting; views show elided text).
    std::string_view nodeName(const Row& row, fxmem::NodeId node) const;
    // The attribution of a scene segment (roles, owner modules, module tree).
    const fxmem::Attribution& attribution(int segment) const;
    const std::shared_ptr<const Scene>& scene() const { return scene_; }

private:
    QString text(const Row& row, int column) const;
    const fxmem::Tensor* tensorOf(const Row& row) const;
    std::shared_ptr<const Scene> scene_;
    std::shared_ptr<const OrderedLive> ordered_;
    void applyDifference(std::vector<Row> next, int segment, bool reset = false);
    std::size_t slot(const Row& r) const { return r.storage.index() * 2 + (r.baseline ? 1 : 0); }
    std::vector<Row> rows_;
    int segment_ = -1; // the segment the rows' non-baseline storages belong to
    // The rows list a storage twice (the whole step carries one storage for two parameters, as a
    // region run for two blocks holds one placeholder for both): rowOf_ cannot tell them apart,
    // so such rows are replaced by a reset, and the next update resets too.
    bool duplicates_ = false;
    std::vector<std::int32_t> rowOf_; // per (storage, baseline): row + 1, 0 when not listed
    Update last_;
    std::int64_t step_ = -1;
    std::int64_t total_ = 0;
};

// Sorting (sizes by value, names and other text in natural order: primals_4 before primals_10),
// a case-insensitive filter over every column, and a module filter: the storages owned by a
// module or its submodules.
class LiveStorageProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit LiveStorageProxy(QObject* parent = nullptr);
    void setFilterText(const QString& text);
    // A module's qualified name ("" = the root, which owns everything); null: no module filter.
    void setModuleFilter(const QString& module);
    const QString& moduleFilter() const { return module_; }
    void setSourceModel(QAbstractItemModel* model) override;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    // Numeric columns compare the rows' fields directly: a scrub re-sorts tens of thousands of
    // rows, and QVariants per comparison would dominate.
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    void resolveModule() const; // the filter module's tree index in each segment of the scene
    QString filter_;
    QString module_;
    mutable std::vector<std::uint32_t> moduleIndex_; // per scene segment; ModuleTree::npos when absent
    mutable const Scene* resolvedFor_ = nullptr;
    const LiveStorageModel* live_ = nullptr; // the source, cast once (lessThan runs n log n times)
};
