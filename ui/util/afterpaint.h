// Work that waits for the frame in progress. An edit must show where the user acted within a
// frame; what follows from it (the timeline's edited curve, the workers that re-analyse the new
// order) can come a few milliseconds later, once that frame is on screen. Qt posts a window's
// UpdateRequest at Qt::LowEventPriority; what is posted here goes below it, so the pending paint
// and flush run first, then the redraws, then the background work.
#pragma once
#include <QObject>

#include <functional>

enum class AfterPaint {
    Redraw,     // views that follow an edit: drawn right after the frame that shows it
    Background, // worker jobs: started after those redraws, so they do not compete with them
};

// Runs `f` on the GUI thread after the pending paint, unless `context` is destroyed first.
void postAfterPaint(QObject* context, AfterPaint order, std::function<void()> f);

// A slot that runs `f` after the pending paint, once however often it is called before then
// (several edits in one frame are drawn once).
std::function<void()> coalescedAfterPaint(QObject* context, AfterPaint order, std::function<void()> f);
