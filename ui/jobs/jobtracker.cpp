#include "jobs/jobtracker.h"

#include "util/afterpaint.h"
#include "util/text.h"

#include <fxmem/error.h>

void JobContext::post(std::function<void(JobTracker*)> f) const {
    JobTracker* o = owner_.data(); // alive: ~JobTracker waits for its workers
    if (!o) return;
    {
        const std::lock_guard lock(mailbox_->mutex);
        mailbox_->items.emplace_back(generation_, std::move(f));
    }
    // A wake-up that carries nothing: what it runs was handed over under the mailbox's lock.
    QMetaObject::invokeMethod(o, "drainMailbox", Qt::QueuedConnection);
}

void JobTracker::drainMailbox() {
    std::vector<std::pair<quint64, std::function<void(JobTracker*)>>> items;
    {
        const std::lock_guard lock(mailbox_->mutex);
        items.swap(mailbox_->items);
    }
    for (auto& [gen, f] : items)
        if (generation_ == gen) f(this);
}

void JobContext::report(double fraction, const QString& stage, bool force) {
    if (!force && sinceReport_.isValid() && sinceReport_.elapsed() < 50) return;
    sinceReport_.restart();
    post([fraction, stage](JobTracker* o) { emit o->progress(fraction, stage); });
}

JobTracker::JobTracker(QObject* parent, int threads, JobPriority priority) : QObject(parent), priority_(priority) {
    pool_.setMaxThreadCount(threads);
}

JobTracker::~JobTracker() {
    if (stop_) stop_->store(true);
    pool_.waitForDone();
}

void JobTracker::setBusy(bool busy) {
    if (busy_ == busy) return;
    busy_ = busy;
    emit busyChanged(busy);
}

void JobTracker::startErased(std::function<std::function<void()>(JobContext&)> work) {
    Q_ASSERT(QThread::currentThread() == thread());
    if (stop_) stop_->store(true);
    stop_ = std::make_shared<std::atomic<bool>>(false);
    auto job = std::make_shared<JobContext>();
    job->owner_ = this;
    job->mailbox_ = mailbox_;
    job->generation_ = ++generation_;
    job->stop_ = stop_;
    setBusy(true);
    auto run = [job, priority = priority_, work = std::move(work)]() mutable {
        applyJobPriority(priority); // this pool's threads serve this tracker only
        try {
            if (job->cancelled()) return; // superseded while queued
            std::function<void()> deliver = work(*job);
            if (job->cancelled()) return;
            job->post([deliver = std::move(deliver)](JobTracker* o) {
                Q_ASSERT(QThread::currentThread() == o->thread());
                o->setBusy(false);
                deliver();
            });
        } catch (const fxmem::Cancelled&) {
            // Usually cancel() or a newer job took over (then this post is stale and dropped);
            // a job that gave up by itself is simply no longer busy.
            job->post([](JobTracker* o) { o->setBusy(false); });
        } catch (const std::exception& e) {
            // Core messages quote names whole, and a name may be 100 MB: show the head only.
            const QString message = elided(std::string_view(e.what()), 4 * kMaxShownNameBytes);
            job->post([message](JobTracker* o) {
                o->setBusy(false);
                emit o->failed(message);
            });
        }
    };
    if (priority_ == JobPriority::Background) {
        postAfterPaint(this, AfterPaint::Background, [this, job, run = std::move(run)]() mutable {
            if (job->cancelled()) return; // superseded before it started: no thread woken
            pool_.start(std::move(run));
            emit started();
        });
        return;
    }
    pool_.start(std::move(run));
    emit started();
}

bool JobTracker::cancel() {
    if (stop_) stop_->store(true);
    ++generation_; // whatever the worker still posts is stale now
    const bool was = busy_;
    setBusy(false);
    return was;
}
