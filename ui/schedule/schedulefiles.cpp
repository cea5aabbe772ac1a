#include "schedule/schedulefiles.h"

#include "state/editedschedule.h"
#include "util/text.h"

#include <fxmem/error.h>
#include <fxmem/schedule.h>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

namespace {
QString tr(const char* text) { return QCoreApplication::translate("ScheduleFiles", text); }
// Core's messages quote node names whole: show their head only (a name may be 100 MB).
QString messageText(std::string_view message) { return elided(message, 4 * kMaxShownNameBytes); }
} // namespace

namespace ScheduleFiles {

bool save(EditedSchedule& edited, const QString& path, QString* error) {
    if (!edited.schedule()) {
        *error = tr("No graph is open.");
        return false;
    }
    try {
        fxmem::save_schedule(edited.analysis()->graph(), edited.order(), QFile::encodeName(path).toStdString());
    } catch (const fxmem::Error& e) {
        *error = messageText(e.what());
        return false;
    }
    edited.markSaved();
    return true;
}

bool open(EditedSchedule& edited, const QString& path, QString* error) {
    if (!edited.schedule()) {
        *error = tr("No graph is open.");
        return false;
    }
    const std::shared_ptr<const GraphAnalysis>& a = edited.analysis();
    fxmem::Schedule schedule;
    try {
        // The graph name makes a schedule of another graph an error naming both.
        schedule = fxmem::load_schedule(a->file(), QFile::encodeName(path).toStdString(), a->graph().name);
        if (schedule.graph != a->graph_index())
            throw fxmem::Error(QFile::encodeName(path).toStdString() + ": the schedule is for graph '" +
                               a->file().graph(schedule.graph).name + "', not '" + a->graph().name + "'");
    } catch (const fxmem::Error& e) {
        *error = messageText(e.what());
        return false;
    }
    const MoveOutcome out =
        edited.setOrder(std::move(schedule.order), tr("Open schedule '%1'").arg(QFileInfo(path).fileName()), true);
    if (!out.ok) {
        *error = out.why;
        return false;
    }
    edited.markSaved();
    return true;
}

} // namespace ScheduleFiles
