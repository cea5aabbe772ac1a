// The edited order as a SCHED file (fxmem::save_schedule / load_schedule). A save marks the undo
// stack clean; an open is one undoable command. On error nothing changes and the message names
// the file and the problem (core's text, long names cut to their head).
#pragma once
#include <QString>

class EditedSchedule;

namespace ScheduleFiles {
bool save(EditedSchedule& edited, const QString& path, QString* error);
// A schedule of another graph of the file is an error naming both graphs.
bool open(EditedSchedule& edited, const QString& path, QString* error);
} // namespace ScheduleFiles
