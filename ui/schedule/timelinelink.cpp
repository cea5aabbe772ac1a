#include "schedule/timelinelink.h"

#include "schedule/scheduleeditor.h"
#include "timeline/timelineplot.h"

void linkScheduleToTimeline(ScheduleEditor* editor, TimelinePlot* timeline) {
    QObject::connect(editor, &ScheduleEditor::comparisonChanged, timeline, [editor, timeline] {
        const std::shared_ptr<const OrderComparison> c = editor->comparison();
        // The timeline shows this graph's profile: a comparison only fits when the lengths agree
        // (the editor works on single graphs; a joined view has no comparison).
        if (!c || c->profile_a.size() != timeline->stepCount()) return timeline->clearComparison();
        timeline->setComparison({editor->comparisonName(0), c->profile_a, c->peak_step_a},
                                {editor->comparisonName(1), c->profile_b, c->peak_step_b});
    });
    QObject::connect(editor, &ScheduleEditor::lowerBoundChanged, timeline,
                     [timeline](qint64 bytes) { timeline->setLowerBound(bytes); });
}
