// One background-job helper for every worker of the app (each owner makes its own tracker; grep
// for JobTracker to list them). A job runs on the tracker's thread pool and receives a JobContext
// whose cancel check it polls (core code takes it as a fxmem::CancelCheck), so Cancel stops the
// work instead of only dropping its result. Every start() supersedes the previous job (a
// generation number): the previous job is told to stop, and only the latest job's result is
// delivered, on the thread of the tracker, as an immutable std::shared_ptr<const T>. Exceptions
// are caught in one place: fxmem::Cancelled ends a job silently, any other std::exception becomes
// failed(message). A Background tracker hands its job to the pool only after the frame in
// progress is painted (postAfterPaint): a follow-up of an edit then neither wakes a thread nor
// competes for a core while the GUI thread draws the edit.
//
// What a worker posts (progress, the result) goes through the tracker's mailbox, a std::mutex
// guarded queue that the tracker drains on its own thread: the hand-over is then one that
// ThreadSanitizer sees (Qt's own queued calls synchronise through futexes inside an uninstrumented
// QtCore), and a posted function is built on the worker and run and destroyed on the tracker's
// thread only.
#pragma once
#include "jobs/threadpriority.h"

#include <fxmem/cancel.h>

#include <QElapsedTimer>
#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThread>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

class JobTracker;

// Functions posted by a tracker's workers, with the generation of the job that posted each.
struct JobMailbox {
    std::mutex mutex;
    std::vector<std::pair<quint64, std::function<void(JobTracker*)>>> items;
};

// What a running job sees. It never touches the tracker directly, only posts to it.
class JobContext {
public:
    // True once a newer job started, cancel() was called or the tracker is being destroyed.
    bool cancelled() const { return stop_->load(std::memory_order_relaxed); }
    fxmem::CancelCheck cancelCheck() const {
        return [stop = stop_] { return stop->load(std::memory_order_relaxed); };
    }
    void throwIfCancelled() const { fxmem::throw_if_cancelled(cancelCheck()); }
    // Throttled to one report per 50 ms unless `force`; emitted as JobTracker::progress.
    void report(double fraction, const QString& stage, bool force = false);

private:
    friend class JobTracker;
    QPointer<JobTracker> owner_;
    std::shared_ptr<JobMailbox> mailbox_;
    quint64 generation_ = 0;
    std::shared_ptr<std::atomic<bool>> stop_;
    QElapsedTimer sinceReport_;
    // Runs `f` on the tracker's thread if this job is still the latest there.
    void post(std::function<void(JobTracker*)> f) const;
};

class JobTracker : public QObject {
    Q_OBJECT
public:
    // `threads`: 2 lets a new job start while a superseded one is still winding down.
    // `priority`: Background for follow-ups of an edit, which must not delay the GUI's next frame.
    explicit JobTracker(QObject* parent = nullptr, int threads = 2, JobPriority priority = JobPriority::Normal);
    ~JobTracker() override; // stops the running job and waits for the pool

    // Runs `work` on the pool; `deliver` receives its result on this object's thread, unless a
    // newer job started or cancel() was called meanwhile.
    template <class T, class Work, class Deliver>
    void start(Work work, Deliver deliver) {
        startErased([work = std::move(work),
                     deliver = std::move(deliver)](JobContext& job) mutable -> std::function<void()> {
            std::shared_ptr<const T> result = work(job);
            return [deliver = std::move(deliver), result = std::move(result)]() mutable { deliver(std::move(result)); };
        });
    }

    // Stops the running job: nothing of it is delivered. Returns whether one was running.
    bool cancel();
    bool busy() const { return busy_; }
    quint64 generation() const { return generation_; }
    // Blocks until no worker of this tracker runs (false if `msecs` ran out first); what the
    // workers posted is then queued on this thread. A Background job not yet handed to the pool
    // (its paint still pending) is not waited for. Lets a test see that a stale job delivered
    // nothing without sleeping.
    bool waitForWorkers(int msecs = -1) { return pool_.waitForDone(msecs); }

signals:
    // The job was handed to the pool (for a Background tracker, after the pending paint).
    void started();
    void progress(double fraction, const QString& stage);
    void failed(const QString& message);
    void busyChanged(bool busy);

private slots:
    // Runs what the workers posted, in order, each only if its job is still the latest.
    void drainMailbox();

private:
    friend class JobContext;
    void startErased(std::function<std::function<void()>(JobContext&)> work);
    void setBusy(bool busy);
    std::shared_ptr<JobMailbox> mailbox_ = std::make_shared<JobMailbox>();
    QThreadPool pool_;
    JobPriority priority_;
    quint64 generation_ = 0;
    std::shared_ptr<std::atomic<bool>> stop_;
    bool busy_ = false;
};
