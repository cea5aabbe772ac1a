#include "inspector/nodeinspector.h"

#include "state/viewstate.h"

#include "util/afterpaint.h"
#include "util/colors.h"
#include "util/text.h"
#include "util/units.h"

#include <QEvent>
#include <QStringList>
#include <QUrl>

NodeInspector::NodeInspector(ViewState* state, QWidget* parent) : QTextBrowser(parent) {
    setOpenLinks(false);
    setOpenExternalLinks(false);
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        // node:<segment>:<id>
        const QStringList parts = url.toString().split(QLatin1Char(':'));
        if (parts.size() == 3 && parts[0] == QLatin1String("node"))
            emit nodeActivated(NodeRef{parts[1].toInt(), fxmem::NodeId(parts[2].toInt())});
    });
    setPlaceholderText(tr("Click a node in the graph, a row of the live table or a point of the timeline."));
    if (state) bindState(state);
}

void NodeInspector::setScene(std::shared_ptr<const Scene> scene) {
    scene_ = std::move(scene);
    node_ = {};
    shownHtml_.clear();
    clear();
}

void NodeInspector::showNode(NodeRef ref) {
    node_ = ref;
    if (!scene_ || !ref.valid()) {
        shownHtml_.clear();
        clear();
        return;
    }
    setPage(html(ref));
}

void NodeInspector::setPage(QString page) {
    shownHtml_ = std::move(page);
    setHtml(shownHtml_);
}

void NodeInspector::changeEvent(QEvent* event) {
    QTextBrowser::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && node_.valid()) setPage(html(node_));
}

QString NodeInspector::html(NodeRef ref) const {
    const Segment& seg = scene_->segments[static_cast<std::size_t>(ref.segment)];
    const GraphAnalysis& a = *seg.analysis;
    const fxmem::Graph& g = a.graph();
    const fxmem::GraphFile& f = a.file();
    const fxmem::Node& n = g.node(ref.node);
    const QPalette pal = palette();
    const QString dim = colors::mix(pal.color(QPalette::Base), pal.color(QPalette::Text), 0.6).name();
    // Names come from the file and may be huge: elided before they become QStrings.
    auto esc = [](std::string_view s) { return elided(s).toHtmlEscaped(); };
    auto link = [&](fxmem::NodeId id) {
        return QStringLiteral("<a href=\"node:%1:%2\">%3</a>").arg(ref.segment).arg(id.value).arg(esc(g.node(id).name));
    };
    auto storageName = [&](fxmem::StorageId s) {
        return QStringLiteral("#%1 (%2, %3)")
            .arg(f.storages[s.index()].file_id)
            .arg(formatBytes(f.nbytes(s)), elided(f.device(s)));
    };

    QString h;
    h += QStringLiteral("<h3 style='margin-bottom:2px'>%1</h3>").arg(esc(n.name));
    const std::int64_t originalStep = scene_->globalStep(ref.segment, ref.node);
    const std::int64_t step = state_ ? state_->stepOf(ref) : originalStep;
    const QString where =
        step == originalStep ? tr("step %1").arg(step) : tr("step %1 (originally %2)").arg(step).arg(originalStep);
    h += QStringLiteral("<div style='color:%1'>%2 · %3 · %4</div>")
             .arg(dim, QString::fromStdString(std::string(fxmem::to_string(n.op))),
                  elided(scene_->segmentName(static_cast<std::size_t>(ref.segment))).toHtmlEscaped(), where);
    h += QStringLiteral("<p><b>target</b> <code>%1</code></p>").arg(esc(g.target(ref.node)));
    if (note_)
        if (const QString note = note_(*scene_, ref); !note.isEmpty()) h += QStringLiteral("<p>%1</p>").arg(note);

    auto nodeList = [&](std::span<const fxmem::NodeId> ids) {
        if (ids.empty()) return tr("<span style='color:%1'>none</span>").arg(dim);
        QStringList items;
        for (fxmem::NodeId id : ids) items << link(id);
        return items.join(QStringLiteral(", "));
    };
    h +=
        tr("<p><b>inputs</b> %1<br><b>users</b> %2</p>").arg(nodeList(g.inputs(ref.node)), nodeList(g.users(ref.node)));

    const auto tensors = g.node_tensors(ref.node);
    if (!tensors.empty()) {
        h += tr("<p><b>outputs</b></p><table cellspacing=0 cellpadding=2><tr><th align=left>dtype</th><th "
                "align=left>shape</th>"
                "<th align=left>stride</th><th align=left>storage</th></tr>");
        for (const fxmem::Tensor& t : tensors) {
            QStringList shape, stride;
            for (std::int64_t d : g.shape(t)) shape << QString::number(d);
            for (std::int64_t d : g.stride(t)) stride << QString::number(d);
            h += QStringLiteral(
                     "<tr><td><code>%1</code></td><td><code>[%2]</code></td><td><code>[%3]</code></td><td>%4</td></tr>")
                     .arg(esc(f.dtypes[t.dtype]), shape.join(QStringLiteral(", ")), stride.join(QStringLiteral(", ")),
                          storageName(t.storage));
        }
        h += QStringLiteral("</table>");
    } else if (g.val(ref.node).size() == 1 && g.val(ref.node)[0].kind == fxmem::ValToken::Kind::Other) {
        h += tr("<p><b>value</b> <code>%1</code></p>").arg(esc(g.others[g.val(ref.node)[0].payload]));
    }

    auto storageList = [&](std::span<const fxmem::StorageId> ids, bool frees) {
        QStringList items;
        std::int64_t total = 0;
        for (fxmem::StorageId s : ids) {
            if (!a.counted()[s.index()]) continue;
            if (frees && (n.op == fxmem::OpKind::Output || !a.releasable()[a.alias().allocator[s.index()].index()]))
                continue;
            items << storageName(s);
            total += f.nbytes(s);
        }
        if (items.isEmpty()) return tr("<span style='color:%1'>nothing</span>").arg(dim);
        return QStringLiteral("<b>%1</b>: %2").arg(formatBytes(total), items.join(QStringLiteral(", ")));
    };
    h +=
        tr("<p><b>allocates</b> %1<br><b>frees</b> %2</p>")
            .arg(storageList(a.alias().fresh_of(ref.node), false), storageList(a.alias().last_used_at(ref.node), true));

    if (const std::string_view trace = g.stack_trace(ref.node); !trace.empty())
        h += tr("<p><b>stack trace</b></p><pre style='font-size:small'>%1</pre>")
                 .arg(elided(trace, 64 * 1024).toHtmlEscaped());
    else
        h += tr("<p style='color:%1'>no stack trace recorded</p>").arg(dim);
    return h;
}

void NodeInspector::bindState(ViewState* state) {
    state_ = state;
    connect(state, &ViewState::sceneChanged, this, &NodeInspector::setScene);
    connect(state, &ViewState::nodeSelected, this, [this](NodeRef ref) { showNode(ref); });
    // The node's step may have moved with the order. Its page follows right after the frame
    // that shows the edit (laying out a page costs 1-2 ms).
    connect(state, &ViewState::orderChanged, this, coalescedAfterPaint(this, AfterPaint::Redraw, [this] {
                // Most moves leave the node's text as it was: laying out the same page again costs a frame.
                if (!node_.valid() || !scene_) return;
                QString page = html(node_);
                if (page != shownHtml_) setPage(std::move(page));
            }));
    // The sizes on the page in the new units.
    connect(state, &ViewState::unitsChanged, this, [this] {
        if (node_.valid() && scene_) setPage(html(node_));
    });
    connect(this, &NodeInspector::nodeActivated, state, [state](NodeRef ref) { state->selectNode(ref, true); });
}
