// The Recompute dock: for a file with budget pairs or a joint graph, the plot of pair peak
// against extra FLOPs (RecomputePlot) over a sortable table of its points. "Find plan" runs
// core's search_remat on a JobTracker (progress, Cancel) within the extra-FLOPs limit beside it
// (RematOptions::max_extra_percent, as fxmem-cli remat --max-extra-percent); the result arrives as
// a shared_ptr<const RecomputePlan>. Clicking a budget point asks for that pair of the file;
// clicking the plan asks for its simulated pair (a file made in memory); clicking a frontier
// point searches the lowest-FLOPs plan at that peak and shows it. currentPlan() is what
// File ▸ Save Plan writes.
#pragma once
#include "recompute/recomputepoints.h"

#include <QWidget>

#include <functional>
#include <memory>

class JobTracker;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;
class QUndoStack;
class RecomputePlot;
class RecomputeTableModel;
class ViewState;
struct Scene;
struct NodeRef;

class RecomputePanel : public QWidget {
    Q_OBJECT
public:
    explicit RecomputePanel(ViewState* state, QWidget* parent = nullptr);

    const RecomputePoints& points() const;
    RecomputePlot* plot() const { return plot_; }
    QTableView* table() const { return table_; }
    QPushButton* findButton() const { return find_; }
    JobTracker* jobs() const { return jobs_; }
    const std::shared_ptr<const RecomputePlan>& plan() const { return plan_; }
    // The file whose points are shown (the file opened, not a simulated pair).
    const std::shared_ptr<const fxmem::GraphFile>& file() const { return file_; }

    // Starts the plan search (within maxExtraPercent(), or the lowest FLOPs at most targetPeak);
    // a running one is superseded. Before the file's points are scored, it starts once they are.
    // `show`: show the plan's pair once it arrives.
    void findPlan(std::int64_t targetPeak = -1, bool show = false);
    // Find plan's limit on extra FLOPs, in % of the baseline pair's; -1: no limit.
    double maxExtraPercent() const;
    void setMaxExtraPercent(double percent);
    QDoubleSpinBox* limitBox() const { return limit_; }
    // The plan of the pair shown when it is one made here (the found plan's, an edit's), else the
    // found plan; null when there is neither.
    std::shared_ptr<const fxmem::RematPlan> currentPlan() const;
    // Writes currentPlan() as fxmem-cli remat -o does (core's save_plan: temporary file, rename).
    // False with the reason, which names the path, when there is no plan or the write fails.
    bool savePlan(const QString& path, QString* error) const;
    // What a click on point `index` does.
    void openPoint(int index);

    // "Recompute in backward" / "Save" on the value of the shown pair that holds `storage`
    // (rematedit.h): an undoable edit that shows the edited pair. False with the reason (core's)
    // when refused or when the shown pair does not partition the file's joint graph.
    bool toggleStorage(fxmem::StorageId storage, QString* why = nullptr);
    // What toggleStorage would do for `storage`: "Recompute in backward", "Save in forward", or
    // empty (with the reason) when the storage is neither a saved nor a recomputed value.
    QString actionFor(fxmem::StorageId storage, QString* why = nullptr) const;
    // The saved set of the shown pair in joint ids; false (with the reason) when it has none.
    bool shownSaved(std::vector<fxmem::NodeId>* saved, QString* why = nullptr) const;
    // Its edits' undo stack: ViewState::pairEdits, in the window's history.
    QUndoStack* undoStack() const;
    // For the inspector: "recomputed in the backward from …" on a backward node of a pair of the
    // joint that is a forward node of the joint (PyTorch computes it again there); else empty.
    QString recomputedNote(const Scene& scene, NodeRef ref) const;
    // The same test, without text.
    bool isRecomputed(const Scene& scene, NodeRef ref) const;
    // Every such node of the scene (for the graph view's marks). O(N) name look-ups, once a scene.
    std::vector<NodeRef> recomputedNodes(const Scene& scene) const;
    // The FLOPs of the last edit's pair over the budget-1.0 pair's (its cost), and its peak.
    std::int64_t lastExtraFlops() const { return lastExtra_; }

signals:
    // Show pair `pair` of `file` (the file opened, or a simulated pair's file).
    void pairRequested(std::shared_ptr<const fxmem::GraphFile> file, int pair);
    // A search finished (or failed: message not empty).
    void planReady(const QString& message);
    // An edit was made (its peak and FLOPs cost) or refused (the reason).
    void rematEdited(const QString& message);
    // The points (and the joint graph) of the file arrived: recomputedNodes may answer anew.
    void pointsChanged();
    // currentPlan() may have changed (a plan found, another pair shown, another file).
    void currentPlanChanged();

private:
    void onScene(const std::shared_ptr<const Scene>& scene);
    void showPoints(const RecomputePoints& points);
    void updateCurrent();
    void updateSummary();

    bool isMade(const std::shared_ptr<const fxmem::GraphFile>& file) const;
    ViewState* state_;
    // Pairs made here (the plan's, the edits'), each a file of one pair, with their saved sets.
    struct Made {
        std::shared_ptr<const fxmem::GraphFile> file;
        std::vector<fxmem::NodeId> saved;
        std::shared_ptr<const fxmem::RematPlan> plan; // as a plan file
    };
    std::vector<Made> made_;
    int edits_ = 0;
    std::int64_t lastExtra_ = 0;
    std::shared_ptr<const fxmem::GraphFile> file_;
    std::shared_ptr<const RecomputePlan> plan_;
    bool pendingFind_ = false; // findPlan before the points were scored
    std::int64_t pendingPeak_ = -1;
    bool openPlan_ = false; // show the plan once it arrives (a frontier point was clicked)
    QString error_;
    std::function<QString()> lastEdit_; // the last edit's peak and FLOPs (in the units now), or why it was refused
    JobTracker* jobs_ = nullptr;
    JobTracker* scoring_ = nullptr; // budget rows of a new file
    QLabel* summary_ = nullptr;
    QPushButton* find_ = nullptr;
    QDoubleSpinBox* limit_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QToolButton* cancel_ = nullptr;
    RecomputePlot* plot_ = nullptr;
    RecomputeTableModel* model_ = nullptr;
    QSortFilterProxyModel* proxy_ = nullptr;
    QTableView* table_ = nullptr;
};
