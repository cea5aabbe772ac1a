// How a worker thread yields to the GUI thread. The follow-ups of an edit (the edited order's
// live-set index and its lanes) run while the GUI thread draws what comes next; on a machine with
// few cores a worker at the same priority takes the core from it (measured: a drop's first paint
// at 100k nodes went from 14-16 ms to 9-11 ms when the follow-ups yield, before their start was
// also put after the paint: JobTracker). Jobs the user waits for (loading a file, optimizing, the
// recompute search) keep the normal priority.
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
