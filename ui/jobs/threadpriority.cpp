#include "jobs/threadpriority.h"

#include <QThread>

#include <cerrno>

#if defined(Q_OS_LINUX)
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace {
constexpr int kBackgroundNice = 10;
}

void applyJobPriority(JobPriority priority) {
    if (priority == JobPriority::Normal) return;
#if defined(Q_OS_LINUX)
    // Both calls only lower the thread's claim; failures (a sandbox forbidding them) leave it as it is.
    sched_param param{};
    param.sched_priority = 0;
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
    const auto tid = static_cast<id_t>(gettid());
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, tid);
    if (errno == 0 && nice < kBackgroundNice) setpriority(PRIO_PROCESS, tid, kBackgroundNice);
#else
    QThread::currentThread()->setPriority(QThread::LowPriority);
#endif
}

ThreadSchedulingInfo currentThreadScheduling() {
    ThreadSchedulingInfo info;
#if defined(Q_OS_LINUX)
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(gettid()));
    if (errno == 0) info.nice = nice;
    info.batch = sched_getscheduler(0) == SCHED_BATCH;
#endif
    return info;
}
