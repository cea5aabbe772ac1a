// The schedule dock's Optimize progress: a bar (phase, best peak so far, the bound) and Cancel,
// shown while an OptimizerJob runs. It owns the job; the editor starts it and applies the result.
#pragma once
#include "schedule/optimizerjob.h"

#include <QWidget>

class QProgressBar;

class OptimizeBar : public QWidget {
    Q_OBJECT
public:
    explicit OptimizeBar(QWidget* parent = nullptr);
    void start(std::shared_ptr<const GraphAnalysis> analysis, double timeLimitSeconds);
    void cancel(); // the job returns its best so far: finished() still comes
    bool isRunning() const { return job_->isRunning(); }

signals:
    void finished(std::shared_ptr<const fxmem::OptimizeResult> result, std::shared_ptr<const GraphAnalysis> analysis);
    void failed(const QString& message);

private:
    OptimizerJob* job_ = nullptr;
    QProgressBar* progress_ = nullptr;
};
