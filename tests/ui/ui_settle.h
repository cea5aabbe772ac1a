// Waiting for the app's background work without a fixed sleep. A check that something did NOT
// arrive (a stale job's result, a cancelled load) waits for the positive event that orders after
// it: every worker finished and what it posted delivered.
#pragma once
#include "jobs/jobtracker.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QObject>

namespace settle {

// Delivers what is posted (after-paint work included, so deferred jobs reach their pool), waits
// until no JobTracker under `root` has a running worker, and delivers what the workers posted;
// again until none is busy (a delivery may start the next job). False if `msecs` ran out first.
inline bool jobsUnder(QObject* root, int msecs = 30000) {
    const QDeadlineTimer deadline(msecs);
    for (;;) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        const QList<JobTracker*> trackers = root->findChildren<JobTracker*>();
        for (JobTracker* t : trackers)
            if (!t->waitForWorkers(static_cast<int>(deadline.remainingTime()))) return false;
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        bool busy = false;
        for (JobTracker* t : root->findChildren<JobTracker*>()) busy = busy || t->busy();
        if (!busy) return true;
        if (deadline.hasExpired()) return false;
    }
}

} // namespace settle
