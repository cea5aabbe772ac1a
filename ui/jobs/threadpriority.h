// How a worker thread yields to the GUI thread. Follow-up work after an edit (the edited order's
// live-set index, its lanes, the stacked bands) is started as the edit lands, while the GUI thread
// still has the frame that shows the edit to draw; on a machine with few cores a worker at the
// same priority takes the core from it (measured: a drop's first paint at 100k nodes went from
// 14-16 ms to 9-11 ms when the follow-ups yield). Jobs the user waits for (loading a file,
// optimizing) keep the normal priority.
#pragma once

enum class JobPriority {
    Normal,
    // Linux: SCHED_BATCH (a waking worker does not preempt the GUI thread) and nice 10 (about a
    // tenth of a core against a busy thread, so it still progresses under load, unlike
    // SCHED_IDLE); elsewhere QThread::LowPriority.
    Background,
};

// Applies `priority` to the calling thread. A thread lowered once stays lowered (an unprivileged
// thread cannot raise its priority again), so a pool serves one priority only.
void applyJobPriority(JobPriority priority);

// The calling thread's nice value and whether it is SCHED_BATCH; for tests. {0, false} where the
// platform has neither.
struct ThreadSchedulingInfo {
    int nice = 0;
    bool batch = false;
};
ThreadSchedulingInfo currentThreadScheduling();
