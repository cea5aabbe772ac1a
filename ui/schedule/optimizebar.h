// The schedule dock's Optimize: fxmem::optimize_schedule on a worker (OptimizerJob), with a bar
// (phase, best peak so far, the bound) and Cancel shown while it runs. The result, when it lowers
// the peak and was not cancelled, becomes one undoable edit of the EditedSchedule; the bar keeps
// the optimizer's lower bound ("no order can go below") and says what happened in status().
#pragma once
#include "schedule/optimizerjob.h"

#include <QWidget>

#include <cstdint>

class EditedSchedule;
class QProgressBar;

class OptimizeBar : public QWidget {
    Q_OBJECT
public:
    explicit OptimizeBar(EditedSchedule* edited, QWidget* parent = nullptr);
    // Optimizes the graph being edited; nothing without one or while running.
    void start(double timeLimitSeconds);
    void cancel(); // the job returns its best so far: done() still comes
    bool isRunning() const { return job_->isRunning(); }
    std::int64_t lowerBound() const { return lowerBound_; } // -1 when not known
    // Another graph: its bound is not known (boundChanged(-1) when one was).
    void forgetBound();

signals:
    void status(const QString& text, bool refusal);
    void boundChanged(qint64 bytes); // -1: none known
    void done(bool applied);

private:
    EditedSchedule* edited_;
    OptimizerJob* job_ = nullptr;
    QProgressBar* progress_ = nullptr;
    std::int64_t lowerBound_ = -1;
    void onFinished(const fxmem::OptimizeResult& result, const std::shared_ptr<const GraphAnalysis>& analysis);
};
