// Loads files and builds scenes on a worker thread (a JobTracker). The file loader is injected
// (the app passes fxmem::load_file; tests pass their own), so this library knows nothing of the
// file format. The latest request wins: a newer one stops the running job (the loader, the
// analysis and the layout through the job's cancel check) and only its result is delivered.
// Signals are emitted on the GUI thread.
#pragma once
#include "jobs/jobtracker.h"
#include "loading/scene.h"

#include <fxmem/cancel.h>

#include <QObject>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

// The loader polls control.cancelled (true: throw fxmem::Cancelled) and reports the fraction
// read to control.progress, as fxmem::load_file does.
using LoadControl = fxmem::LoadControl;
using FileLoader = std::function<fxmem::GraphFile(const std::string& path, const LoadControl& control)>;

class SceneLoader : public QObject {
    Q_OBJECT
public:
    explicit SceneLoader(FileLoader loader, QObject* parent = nullptr);
    ~SceneLoader() override; // stops and waits for the worker (the tracker's destructor)

    // Reads `path` and builds the requested scene.
    void open(const QString& path, SceneRequest request = {});
    // Builds another view of a file already loaded; `loaded` as for buildScene (a binding of a
    // file's sizes passes the file as read).
    void rebuild(std::shared_ptr<const fxmem::GraphFile> file, const QString& path, SceneRequest request,
                 std::shared_ptr<const fxmem::GraphFile> loaded = {});
    // Drops the running request (its result is never delivered) and emits cancelled().
    void cancel();
    bool busy() const { return jobs_->busy(); }
    quint64 generation() const { return jobs_->generation(); }

signals:
    // Throttled (about every 50 ms); stage says what runs ("Reading", "Analysing").
    void progress(double fraction, const QString& stage);
    void sceneReady(std::shared_ptr<const Scene> scene);
    void failed(const QString& path, const QString& message);
    void cancelled();
    void busyChanged(bool busy);

private:
    void start(const QString& path, std::shared_ptr<const fxmem::GraphFile> file, SceneRequest request,
               std::shared_ptr<const fxmem::GraphFile> loaded);
    FileLoader loader_;
    JobTracker* jobs_ = nullptr;
    // The latest request's file, and whether it failed while reading (the message then names
    // the file to open) rather than analysing.
    QString path_;
    std::shared_ptr<std::atomic<bool>> reading_;
};
