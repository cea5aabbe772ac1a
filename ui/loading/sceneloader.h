// Loads files and builds scenes on a worker thread. The file loader is injected (the app passes
// fxmem::load_file; tests pass their own), so this library knows nothing of the file format.
// Every request gets a generation number; only the latest request's results are delivered, so
// a slow stale load can never overwrite a newer one. Signals are emitted on the GUI thread.
#pragma once
#include "loading/scene.h"

#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

// Same shape as fxmem::ProgressFn: fraction consumed in [0, 1]; return false to cancel, which
// makes the loader throw fxmem::Cancelled.
using LoadProgress = std::function<bool(double fraction)>;
using FileLoader = std::function<fxmem::GraphFile(const std::string& path, const LoadProgress& progress)>;

class SceneLoader : public QObject {
    Q_OBJECT
public:
    explicit SceneLoader(FileLoader loader, QObject* parent = nullptr);
    ~SceneLoader() override;  // cancels and waits for the worker

    // Reads `path` and builds the requested scene.
    void open(const QString& path, SceneRequest request = {});
    // Builds another view of a file already loaded.
    void rebuild(std::shared_ptr<const fxmem::GraphFile> file, const QString& path, SceneRequest request);
    // Drops the running request (its result is never delivered) and emits cancelled().
    void cancel();
    bool busy() const { return busy_; }
    quint64 generation() const { return generation_; }

signals:
    // Throttled (about every 50 ms); stage says what runs ("Reading", "Analysing").
    void progress(double fraction, const QString& stage);
    void sceneReady(std::shared_ptr<const Scene> scene);
    void failed(const QString& path, const QString& message);
    void cancelled();
    void busyChanged(bool busy);

private:
    struct Job;
    void start(std::function<void(Job&)> work);
    void setBusy(bool busy);
    FileLoader loader_;
    QThreadPool pool_;
    quint64 generation_ = 0;
    std::shared_ptr<std::atomic<bool>> cancelFlag_;
    bool busy_ = false;
};
