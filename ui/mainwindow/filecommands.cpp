#include "mainwindow/filecommands.h"

#include "export/profilecsv.h"
#include "export/viewexport.h"
#include "mainwindow/appsettings.h"
#include "recompute/recomputepanel.h"
#include "schedule/scheduleeditor.h"
#include "state/viewstate.h"
#include "timeline/plotexport.h"
#include "timeline/timelineplot.h"
#include "util/text.h"

#include <fxmem/error.h>
#include <fxmem/export.h>

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QSaveFile>
#include <QStatusBar>

FileCommands::FileCommands(QMainWindow* window, ViewState* state, ScheduleEditor* editor, TimelinePlot* timeline,
                           RecomputePanel* recompute)
    : QObject(window), window_(window), state_(state), editor_(editor), timeline_(timeline), recompute_(recompute),
      scheduleDir_(AppSettings::scheduleDir()) {}

bool FileCommands::maybeKeepSchedule() {
    if (!editor_->isModified()) return true;
    const auto answer = QMessageBox::warning(
        window_, tr("Unsaved schedule"), tr("The edited schedule has not been saved. Save it first?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Save) {
        saveSchedule();
        return !editor_->isModified();
    }
    return true;
}

QString FileCommands::scheduleDir() const {
    if (!scheduleDir_.isEmpty() && QFileInfo(scheduleDir_).isDir()) return scheduleDir_;
    const auto& scene = state_->scene();
    if (scene && !scene->path.isEmpty()) {
        const QFileInfo dir(QFileInfo(scene->path).absolutePath());
        const bool bundled =
            !bundledDir_.isEmpty() && dir.canonicalFilePath() == QFileInfo(bundledDir_).canonicalFilePath();
        if (dir.isDir() && dir.isWritable() && !bundled) return dir.absoluteFilePath();
    }
    return QDir::homePath();
}

void FileCommands::rememberScheduleDir(const QString& path) {
    scheduleDir_ = QFileInfo(path).absolutePath();
    AppSettings::setScheduleDir(scheduleDir_);
}

void FileCommands::saveSchedule() {
    const auto& scene = state_->scene();
    if (!scene || scene->joined() || scene->empty()) return;
    const QString suggested = scheduleDir() % QLatin1Char('/') %
                              elided(scene->segments.front().analysis->graph().name, 60) %
                              QStringLiteral(".schedule.json");
    const QString path =
        QFileDialog::getSaveFileName(window_, tr("Save schedule"), suggested, tr("Schedules (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    if (!editor_->saveSchedule(path, &error)) {
        QMessageBox::critical(window_, tr("Cannot save schedule"), elided(error, 2000));
        return;
    }
    rememberScheduleDir(path);
    window_->statusBar()->showMessage(tr("Schedule saved to %1").arg(elided(path, 200)), 5000);
}

void FileCommands::openSchedule() {
    const auto& scene = state_->scene();
    if (!scene || scene->joined() || scene->empty() || !maybeKeepSchedule()) return;
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open schedule"), scheduleDir(),
                                                      tr("Schedules (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!editor_->openSchedule(path, &error)) {
        QMessageBox::critical(window_, tr("Cannot open schedule"), elided(error, 2000));
        return;
    }
    rememberScheduleDir(path);
}

void FileCommands::savePlan() {
    const auto& scene = state_->scene();
    if (!scene || !recompute_->currentPlan()) return;
    const QString base = QFileInfo(scene->path).completeBaseName().section(QLatin1Char('.'), 0, 0);
    const QString path = QFileDialog::getSaveFileName(
        window_, tr("Save plan"), scheduleDir() % QLatin1Char('/') % base % QStringLiteral(".plan.json"),
        tr("Recompute plans (*.json)"));
    if (!path.isEmpty()) savePlanTo(path);
}

bool FileCommands::savePlanTo(const QString& path) {
    QString error;
    const auto& scene = state_->scene();
    const QFileInfo target(path), graph(scene ? scene->path : QString());
    if (target.exists() && graph.exists() && target.canonicalFilePath() == graph.canonicalFilePath())
        error = tr("%1 is the graph file shown; write the plan elsewhere.").arg(path);
    else if (recompute_->savePlan(path, &error)) {
        rememberScheduleDir(path);
        window_->statusBar()->showMessage(tr("Plan saved to %1").arg(elided(path, 200)), 5000);
        return true;
    }
    showWriteError(tr("Cannot save plan"), tr("Cannot save the plan to %1").arg(elided(path, 300)), error);
    return false;
}

void FileCommands::showWriteError(const QString& title, const QString& text, const QString& why) {
    // Not exec(): the window stays live (and a test can read the box).
    auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, window_);
    box->setInformativeText(elided(why, 2000));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
}

void FileCommands::exportCsv() {
    const auto& scene = state_->scene();
    if (!scene) return;
    const QString path = QFileDialog::getSaveFileName(
        window_, tr("Export profile"), scheduleDir() % QStringLiteral("/profile.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Text)) {
        QMessageBox::critical(window_, tr("Export failed"), out.errorString());
        return;
    }
    out.write(profileCsv(*scene, state_->editedProfile(), state_->editedOrder()));
    if (!out.commit())
        QMessageBox::critical(window_, tr("Export failed"), out.errorString());
    else
        window_->statusBar()->showMessage(tr("Profile exported to %1").arg(elided(path, 200)), 5000);
}

void FileCommands::exportPlot() {
    const auto& scene = state_->scene();
    if (!scene) return;
    QString selected;
    const QString base = QFileInfo(scene->path).completeBaseName().section(QLatin1Char('.'), 0, 0);
    const QString path = QFileDialog::getSaveFileName(
        window_, tr("Export plot"), scheduleDir() % QLatin1Char('/') % base % QStringLiteral("-memory.png"),
        PlotExport::filters(), &selected);
    if (path.isEmpty()) return;
    QString error;
    if (!PlotExport::save(*timeline_, path, &error))
        QMessageBox::critical(window_, tr("Export failed"), error);
    else
        window_->statusBar()->showMessage(tr("Plot exported to %1").arg(path), 5000);
}

void FileCommands::exportPerfetto() { exportView(ExportFormat::Perfetto); }
void FileCommands::exportMemoryViz() { exportView(ExportFormat::MemoryViz); }
bool FileCommands::exportPerfettoTo(const QString& path) { return exportViewTo(ExportFormat::Perfetto, path); }
bool FileCommands::exportMemoryVizTo(const QString& path) { return exportViewTo(ExportFormat::MemoryViz, path); }

void FileCommands::exportView(ExportFormat format) {
    const auto& scene = state_->scene();
    if (!scene || scene->empty()) return;
    const bool perfetto = format == ExportFormat::Perfetto;
    const QString base = QFileInfo(scene->path).completeBaseName().section(QLatin1Char('.'), 0, 0);
    const QString path = QFileDialog::getSaveFileName(
        window_, perfetto ? tr("Export Perfetto trace") : tr("Export memory_viz snapshot"),
        scheduleDir() % QLatin1Char('/') % base %
            (perfetto ? QStringLiteral(".perfetto.json") : QStringLiteral(".memory_viz.pickle")),
        perfetto ? tr("Chrome trace JSON (*.json)") : tr("PyTorch memory snapshots (*.pickle)"));
    if (!path.isEmpty()) exportViewTo(format, path);
}

bool FileCommands::exportViewTo(ExportFormat format, const QString& path) {
    const auto& scene = state_->scene();
    if (!scene || scene->empty()) return false;
    const bool perfetto = format == ExportFormat::Perfetto;
    const QString title =
        perfetto ? tr("Cannot export the Perfetto trace") : tr("Cannot export the memory_viz snapshot");
    const QString text = tr("Cannot export to %1").arg(elided(path, 300));
    const QFileInfo target(path), graph(scene->path);
    if (target.exists() && graph.exists() && target.canonicalFilePath() == graph.canonicalFilePath()) {
        showWriteError(title, text, tr("%1 is the graph file shown; write the export elsewhere.").arg(path));
        return false;
    }
    const bool edited = !scene->joined() && state_->orderEdited();
    const fxmem::ViewSpec view = exportViewOf(*scene, edited ? &state_->editedOrder() : nullptr);
    const std::string file = QFile::encodeName(path).toStdString();
    QString done;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        const fxmem::ExportTimeline t = fxmem::export_timeline(scene->file, view);
        if (perfetto) {
            const std::size_t events = fxmem::save_perfetto(file, *scene->file, t);
            done = tr("Perfetto trace (%n events) written to %1", nullptr, static_cast<int>(events));
        } else {
            const fxmem::MemoryVizSummary s = fxmem::save_memory_viz(file, *scene->file, t);
            done = tr("memory_viz snapshot (%n allocations) written to %1", nullptr, static_cast<int>(s.stays));
        }
    } catch (const std::exception& e) {
        QApplication::restoreOverrideCursor();
        showWriteError(title, text, elided(std::string_view(e.what()), 2000));
        return false;
    }
    QApplication::restoreOverrideCursor();
    rememberScheduleDir(path);
    window_->statusBar()->showMessage(done.arg(elided(path, 200)), 5000);
    return true;
}
