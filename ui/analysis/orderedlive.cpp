#include "analysis/orderedlive.h"

#include "jobs/jobtracker.h"

OrderedLive::OrderedLive(std::shared_ptr<const GraphAnalysis> a, std::span<const fxmem::NodeId> order)
    : analysis(std::move(a)), index(analysis->file(), analysis->graph(), analysis->alias(), analysis->releasable(),
                                    analysis->counted(), order) {}

OrderedLiveBuilder::OrderedLiveBuilder(QObject* parent)
    : QObject(parent), jobs_(new JobTracker(this, 2, JobPriority::Background)) {
    connect(jobs_, &JobTracker::failed, this, &OrderedLiveBuilder::failed);
}

OrderedLiveBuilder::~OrderedLiveBuilder() = default;

void OrderedLiveBuilder::request(std::shared_ptr<const GraphAnalysis> analysis, std::vector<fxmem::NodeId> order) {
    jobs_->start<OrderedLive>(
        [analysis = std::move(analysis), order = std::move(order)](JobContext& job) {
            job.throwIfCancelled(); // a newer edit came in while this one was queued
            return std::make_shared<const OrderedLive>(analysis, order);
        },
        [this](std::shared_ptr<const OrderedLive> live) { emit ready(std::move(live)); });
}

void OrderedLiveBuilder::cancel() { jobs_->cancel(); }

bool OrderedLiveBuilder::pending() const { return jobs_->busy(); }
