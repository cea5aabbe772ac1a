#include "loading/sceneloader.h"

#include <fxmem/error.h>

SceneLoader::SceneLoader(FileLoader loader, QObject* parent)
    : QObject(parent), loader_(std::move(loader)), jobs_(new JobTracker(this)) {
    connect(jobs_, &JobTracker::progress, this, &SceneLoader::progress);
    connect(jobs_, &JobTracker::busyChanged, this, &SceneLoader::busyChanged);
    connect(jobs_, &JobTracker::failed, this,
            [this](const QString& message) { emit failed(reading_ && reading_->load() ? path_ : QString(), message); });
}

SceneLoader::~SceneLoader() = default;

void SceneLoader::open(const QString& path, SceneRequest request) { start(path, nullptr, request, nullptr); }

void SceneLoader::rebuild(std::shared_ptr<const fxmem::GraphFile> file, const QString& path, SceneRequest request,
                          std::shared_ptr<const fxmem::GraphFile> loaded) {
    start(path, std::move(file), request, std::move(loaded));
}

// Reads the file unless given, then builds the scene; both stages poll the job's cancel check.
void SceneLoader::start(const QString& path, std::shared_ptr<const fxmem::GraphFile> given, SceneRequest request,
                        std::shared_ptr<const fxmem::GraphFile> loaded) {
    path_ = path;
    reading_ = std::make_shared<std::atomic<bool>>(given == nullptr);
    jobs_->start<Scene>(
        [loader = loader_, path, given = std::move(given), request, reading = reading_,
         loaded = std::move(loaded)](JobContext& job) {
            std::shared_ptr<const fxmem::GraphFile> file = given;
            if (!file) {
                job.report(0.0, tr("Reading"), true);
                const LoadControl control{job.cancelCheck(),
                                          [&job](double fraction) { job.report(0.8 * fraction, tr("Reading")); }};
                file = std::make_shared<const fxmem::GraphFile>(loader(path.toStdString(), control));
                reading->store(false);
                job.report(0.85, tr("Analysing"), true);
            } else {
                job.report(0.5, tr("Analysing"), true);
            }
            return buildScene(std::move(file), path, request, job.cancelCheck(), loaded);
        },
        [this](std::shared_ptr<const Scene> scene) { emit sceneReady(std::move(scene)); });
}

void SceneLoader::cancel() {
    if (jobs_->cancel()) emit cancelled();
}
