#include "loading/sceneloader.h"

#include <fxmem/error.h>

#include <QElapsedTimer>
#include <QPointer>
#include <QThread>

// What a worker needs; it never touches the SceneLoader itself, only posts to it.
struct SceneLoader::Job {
    QPointer<SceneLoader> owner;
    quint64 generation = 0;
    std::shared_ptr<std::atomic<bool>> cancel;
    QElapsedTimer sinceReport;

    bool cancelled() const { return cancel->load(); }
    // Runs `f` on the GUI thread if this job is still the latest request there.
    template <class F>
    void post(F f) {
        SceneLoader* o = owner.data();
        if (!o) return;
        const quint64 gen = generation;
        QMetaObject::invokeMethod(
            o, [o, gen, f = std::move(f)]() mutable { if (o->generation_ == gen) f(o); }, Qt::QueuedConnection);
    }
    void report(double fraction, const QString& stage, bool force = false) {
        if (!force && sinceReport.isValid() && sinceReport.elapsed() < 50) return;
        sinceReport.restart();
        post([fraction, stage](SceneLoader* o) { emit o->progress(fraction, stage); });
    }
};

SceneLoader::SceneLoader(FileLoader loader, QObject* parent) : QObject(parent), loader_(std::move(loader)) {
    pool_.setMaxThreadCount(2);  // one running job and one being cancelled
}

SceneLoader::~SceneLoader() {
    if (cancelFlag_) cancelFlag_->store(true);
    pool_.waitForDone();
}

void SceneLoader::setBusy(bool busy) {
    if (busy_ == busy) return;
    busy_ = busy;
    emit busyChanged(busy);
}

void SceneLoader::start(std::function<void(Job&)> work) {
    if (cancelFlag_) cancelFlag_->store(true);
    cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
    auto job = std::make_shared<Job>();
    job->owner = this;
    job->generation = ++generation_;
    job->cancel = cancelFlag_;
    setBusy(true);
    pool_.start([job, work = std::move(work)] {
        try {
            work(*job);
        } catch (const fxmem::Cancelled&) {
            // cancel() already told the GUI; a superseded job has nothing to say.
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            job->post([message](SceneLoader* o) {
                o->setBusy(false);
                emit o->failed(QString(), message);
            });
        }
    });
}

void SceneLoader::open(const QString& path, SceneRequest request) {
    const FileLoader loader = loader_;
    start([loader, path, request](Job& job) {
        job.report(0.0, tr("Reading"), true);
        auto file = std::make_shared<fxmem::GraphFile>();
        try {
            *file = loader(path.toStdString(), [&job](double fraction) {
                if (job.cancelled()) return false;
                job.report(0.8 * fraction, tr("Reading"));
                return true;
            });
        } catch (const fxmem::Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            const QString message = QString::fromStdString(e.what());
            job.post([path, message](SceneLoader* o) {
                o->setBusy(false);
                emit o->failed(path, message);
            });
            return;
        }
        if (job.cancelled()) return;
        job.report(0.85, tr("Analysing"), true);
        auto scene = buildScene(std::move(file), path, request);
        if (job.cancelled()) return;
        job.post([scene](SceneLoader* o) {
            o->setBusy(false);
            emit o->sceneReady(scene);
        });
    });
}

void SceneLoader::rebuild(std::shared_ptr<const fxmem::GraphFile> file, const QString& path, SceneRequest request) {
    start([file = std::move(file), path, request](Job& job) {
        job.report(0.5, tr("Analysing"), true);
        auto scene = buildScene(file, path, request);
        if (job.cancelled()) return;
        job.post([scene](SceneLoader* o) {
            o->setBusy(false);
            emit o->sceneReady(scene);
        });
    });
}

void SceneLoader::cancel() {
    if (!busy_) return;
    if (cancelFlag_) cancelFlag_->store(true);
    ++generation_;  // whatever the worker still posts is stale now
    setBusy(false);
    emit cancelled();
}
