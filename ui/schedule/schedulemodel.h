// One graph's nodes in schedule order, one row per position: a table over the EditedSchedule
// that owns the order (re-scored incrementally as rows move). Moves are fine-grained
// (beginMoveRows), so selection and scroll follow the node. A drop or moveRows is a move request
// to the EditedSchedule (one undoable command when accepted); whoever shows its outcome listens
// there (EditedSchedule::moveAnswered).
#pragma once
#include "analysis/graphanalysis.h"
#include "state/editedschedule.h"

#include <fxmem/incremental.h>

#include <QAbstractTableModel>
#include <QFont>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class ScheduleModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // Two numberings, both labelled: the position in this order (what moves act on: 0 = first
    // node, placeholders included) and the profile step that the timeline, the graph view and
    // the node inspector show (1 + 2k for the k-th node with profile points, 0 for placeholders
    // and get_attr, the last step for the output node).
    enum Column {
        StepColumn,        // position
        ProfileStepColumn, // profile step in this order
        NodeColumn,
        TargetColumn,
        DuringColumn, // after the node's allocations, before its frees: where peaks happen
        MemoryColumn, // after its frees
        DeltaColumn,
        OriginalStepColumn, // position in the original order, when it moved
        ColumnCount
    };
    enum Roles {
        NodeIdRole = Qt::UserRole, // int: the node's NodeId value
        SortRole,                  // a value that sorts the column numerically
        BytesRole,                 // qlonglong: memory after the node (bytes)
        DeltaRole,                 // qlonglong: change of memory over the node (bytes)
        DuringRole,                // qlonglong: memory after its allocations, before its frees
        OriginalStepRole,          // qulonglong: position in the graph's original order
        IsPeakRole,                // bool: the current order's peak is reached at this node
        ProfileStepRole,           // qlonglong: the node's profile step in the current order
        LegalDropRole,             // QVariant(): no drag; else bool: the dragged node may go here
    };
    static constexpr const char* kMimeType = "application/x-fxmem-schedule-position";

    // A table over `schedule` (not null), which outlives it.
    explicit ScheduleModel(EditedSchedule* schedule, QObject* parent = nullptr);
    ~ScheduleModel() override;
    EditedSchedule* editedSchedule() const { return edited_; }

    // Original order. nullptr empties the model.
    void setAnalysis(std::shared_ptr<const GraphAnalysis> analysis) { edited_->setAnalysis(std::move(analysis)); }
    const std::shared_ptr<const GraphAnalysis>& analysis() const { return edited_->analysis(); }
    // nullptr when empty.
    const fxmem::IncrementalSchedule* schedule() const { return edited_->schedule(); }
    std::size_t size() const { return edited_->size(); }
    // The byte units changed: the memory columns and the rows' tooltips read anew (dataChanged).
    void refreshBytes();

    fxmem::IncrementalSchedule::MoveCheck checkMove(std::size_t from, std::size_t to) const;
    // A whole order replaced (EditedSchedule::setOrder): rows follow their nodes, persistent
    // indexes are remapped, not reset.

    // Memory after the node at `position`'s allocations, before its frees.
    std::int64_t during(std::size_t position) const;
    // The profile step of the node at `position` in the current order (see Column), and back:
    // the position of the node whose profile points include `step` (0: the first position; past
    // the end: the last), for "move to profile step N".
    std::int64_t profileStep(std::size_t position) const { return edited_->profileStep(position); }
    std::size_t positionOfProfileStep(std::int64_t step) const { return edited_->positionOfProfileStep(step); }

    // Drag feedback: while set, LegalDropRole tells which rows the node at `position` may reach.
    void setDragSource(std::optional<std::size_t> position);
    std::optional<std::size_t> dragSource() const { return dragSource_; }
    // The final position of a node dropped before row `insertRow` (rowCount(): at the end).
    static std::size_t targetPosition(std::size_t from, std::size_t insertRow);
    // The source position carried by mime data from this model, or nothing.
    std::optional<std::size_t> decodePosition(const QMimeData* data) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count, const QModelIndex& destinationParent,
                  int destinationChild) override;
    Qt::DropActions supportedDropActions() const override { return Qt::MoveAction; }
    Qt::DropActions supportedDragActions() const override { return Qt::MoveAction; }
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                         const QModelIndex& parent) const override;
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                      const QModelIndex& parent) override;

signals:
    // After every change of order (move, setOrder, setAnalysis): peaks and profile are stale.
    // Forwarded from EditedSchedule::orderChanged, after the rows moved.
    void orderChanged();

private:
    EditedSchedule* edited_;
    QModelIndexList replacing_;                 // persistent indexes while the order is replaced
    std::vector<fxmem::NodeId> replacingNodes_; // and their nodes
    std::size_t peakRow_ = 0;
    bool hasPeakRow_ = false;
    std::optional<std::size_t> dragSource_;
    fxmem::IncrementalSchedule::LegalRange dragRange_;
    QFont fixedFont_, fixedBoldFont_, boldFont_; // looked up once, not per painted cell

    std::int64_t afterOrStart(std::size_t position) const; // memory after `position`; start for -1
    std::optional<std::size_t> dropTarget(const QMimeData* data, int row, const QModelIndex& parent,
                                          std::size_t* from) const;
    void updatePeakRow(bool notify);
};
