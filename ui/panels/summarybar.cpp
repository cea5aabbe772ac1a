#include "panels/summarybar.h"

#include "state/viewstate.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <fxmem/error.h>
#include <fxmem/estimator.h>

#include <QEvent>
#include <QFileInfo>

#include <algorithm>

SummaryBar::SummaryBar(ViewState* state, QWidget* parent) : QLabel(parent), state_(state) {
    setTextFormat(Qt::RichText);
    setMargin(8);
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QFont headline = font();
    headline.setPointSizeF(headline.pointSizeF() * 1.15);
    setFont(headline);
    connect(state_, &ViewState::sceneChanged, this, &SummaryBar::refresh);
    connect(state_, &ViewState::orderChanged, this, &SummaryBar::refresh);
    connect(state_, &ViewState::unitsChanged, this, &SummaryBar::refresh);
}

QSize SummaryBar::minimumSizeHint() const {
    // One line high, no width of its own: long text wraps (heightForWidth) rather than widening.
    return {0, fontMetrics().height() + 2 * margin()};
}

void SummaryBar::showHint(const QString& hint) { setText(hint); }

void SummaryBar::changeEvent(QEvent* event) {
    QLabel::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) refresh();
}

void SummaryBar::refresh() {
    const auto& scene = state_->scene();
    if (!scene) return;
    if (scene->empty()) {
        setText(tr("<b>%1</b> holds no graph.").arg(elided(QFileInfo(scene->path).fileName()).toHtmlEscaped()));
        return;
    }
    setToolTip(QString());
    const QPalette pal = palette();
    const QString dim = colors::mix(pal.color(QPalette::Window), pal.color(QPalette::WindowText), 0.6).name();
    // Which peak this is, in the words of fxmem-cli: a whole step's is not `fxmem-cli peak`'s pair peak.
    QString h = tr("<span>%1 <b style='color:%2'>%3</b></span> "
                   "<span style='color:%4'>at step %5 · %6</span>")
                    .arg(scene->wholeStep() ? tr("Whole-step peak") : tr("Peak"), colors::peak(pal).name(),
                         formatBytes(scene->peak), dim)
                    .arg(scene->peakStep)
                    .arg(state_->describeStep(static_cast<std::int64_t>(scene->peakStep), false).toHtmlEscaped());
    if (scene->request.filter == DeviceFilter::All) h += tr(" <b>counting CPU storages</b>");
    const GraphAnalysis& first = *scene->segments.front().analysis;
    const std::vector<std::int64_t>& edited = state_->editedProfile();
    // The schedule keeps its curve's peak step: the timeline's overlay reads the same one.
    const std::int64_t editedPeak = edited.empty() ? 0 : edited[state_->schedule()->peakStep()];
    const std::int64_t original = first.peak();
    if (state_->orderEdited()) {
        h +=
            tr("&nbsp;&nbsp;│&nbsp;&nbsp;<span>Edited <b style='color:%1'>%2</b></span> "
               "<span style='color:%1'>%3</span>")
                .arg(colors::edited(pal).name(), formatBytes(editedPeak), formatDelta(editedPeak - original, original));
    }
    if (scene->pairPeak) {
        const fxmem::PeakMemory& pm = *scene->pairPeak;
        h += tr("&nbsp;&nbsp;│&nbsp;&nbsp;Pair peak <b>%1</b> <span style='color:%2'>(forward %3, backward %4 incl. "
                "baseline %5)</span>")
                 .arg(formatBytes(pm.peak), dim, formatBytes(pm.forward_peak), formatBytes(pm.backward_peak),
                      formatBytes(pm.backward_baseline));
        // An edited forward or backward moves the pair's peak too: get_peak_memory on the graph
        // reordered (apply_schedule) profiles that order, whose peak is the editor's; the
        // baseline does not depend on the order.
        if (state_->orderEdited() && !scene->joined()) {
            const bool backward = first.is_backward_of_pair();
            const fxmem::GraphFile& file = *scene->file;
            const std::optional<std::size_t> p = first.pair_index();
            try {
                // The baseline plus the edited backward's peak can exceed 2^63-1 on a hostile
                // file: core's checked sum says so instead of a wrapped, negative number.
                const std::int64_t editedBackward =
                    !backward || !p ? pm.backward_peak
                                    : fxmem::pair_backward_peak(file, file.graph(file.pairs[*p].forward),
                                                                file.graph(file.pairs[*p].backward),
                                                                pm.backward_baseline, editedPeak);
                const std::int64_t editedPair =
                    backward ? std::max(pm.forward_peak, editedBackward) : std::max(editedPeak, pm.backward_peak);
                h += tr(" <span style='color:%1'>→ edited <b>%2</b> %3</span>")
                         .arg(colors::edited(pal).name(), formatBytes(editedPair),
                              formatDelta(editedPair - pm.peak, pm.peak));
            } catch (const fxmem::Error& e) {
                h += tr(" <span style='color:%1'>→ edited: <b>overflow</b></span>").arg(colors::peak(pal).name());
                setToolTip(elided(QString::fromUtf8(e.what()), 2000));
                setText(h);
                return;
            }
        }
    } else if (scene->wholeStep()) {
        h += tr("&nbsp;&nbsp;│&nbsp;&nbsp;<span style='color:%1'>whole step: parameters %2, optimizer state "
                "%3</span>")
                 .arg(dim, formatBytes(scene->step->parameters), formatBytes(scene->step->optimizer_state));
    } else if (first.is_backward_of_pair()) {
        h += tr("&nbsp;&nbsp;│&nbsp;&nbsp;baseline %1").arg(formatBytes(first.baseline()));
    }
    setText(h);
}
