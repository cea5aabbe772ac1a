#include "schedule/movetorow.h"

#include "state/editedschedule.h"
#include "util/text.h"

#include <QComboBox>
#include <QCompleter>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

MoveToRow::MoveToRow(QWidget* parent) : QWidget(parent) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(4, 0, 4, 0);
    kind_ = new QComboBox(this);
    kind_->setObjectName(QStringLiteral("moveKind"));
    kind_->addItem(tr("position"), static_cast<int>(Kind::Position));
    kind_->addItem(tr("profile step"), static_cast<int>(Kind::ProfileStep));
    kind_->addItem(tr("just after node"), static_cast<int>(Kind::AfterNode));
    kind_->setToolTip(tr("Position: in this order (the Pos column). Profile step: the timeline's numbering "
                         "(the Step column). Just after node: type a node's name."));
    target_ = new QLineEdit(this);
    target_->setObjectName(QStringLiteral("moveTarget"));
    target_->setClearButtonEnabled(true);
    target_->setPlaceholderText(tr("number"));
    auto* move = new QToolButton(this);
    move->setText(tr("Move"));
    move->setToolTip(tr("Move the selected node (Enter in the field does the same)"));
    row->addWidget(new QLabel(tr("Move selected to"), this));
    row->addWidget(kind_);
    row->addWidget(target_, 1);
    row->addWidget(move);
    const auto request = [this] { emit moveRequested(kind(), target_->text().trimmed()); };
    connect(move, &QToolButton::clicked, this, request);
    connect(target_, &QLineEdit::returnPressed, this, request);
    connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
        // A number typed for one mode means nothing in another (and a name typed after it
        // would read "100view_3").
        target_->clear();
        target_->setPlaceholderText(kind() == Kind::AfterNode ? tr("node name") : tr("number"));
        updateCompleter();
    });
}

MoveToRow::Kind MoveToRow::kind() const { return static_cast<Kind>(kind_->currentData().toInt()); }

void MoveToRow::setGraph(const fxmem::Graph* graph) {
    graph_ = graph;
    updateCompleter();
}

void MoveToRow::updateCompleter() {
    // Node names complete only in "just after node" mode, built when that mode is chosen.
    if (kind() != Kind::AfterNode || !graph_) {
        target_->setCompleter(nullptr);
        return;
    }
    QStringList names;
    names.reserve(static_cast<qsizetype>(graph_->size()));
    for (std::size_t n = 0; n < graph_->size(); ++n)
        names << elided(graph_->node(fxmem::NodeId(static_cast<std::int32_t>(n))).name);
    auto* completer = new QCompleter(names, target_);
    completer->setCaseSensitivity(Qt::CaseSensitive);
    completer->setFilterMode(Qt::MatchContains);
    target_->setCompleter(completer);
}

MoveToRow::Target MoveToRow::read(Kind kind, const QString& text, const EditedSchedule& edited) {
    Target t;
    bool ok = false;
    switch (kind) {
    case Kind::Position:
        t.position = static_cast<std::size_t>(text.toULongLong(&ok));
        if (!ok)
            t.error = tr("'%1' is not a position (a number from 0 to %2).").arg(elided(text)).arg(edited.size() - 1);
        break;
    case Kind::ProfileStep: {
        const qlonglong step = text.toLongLong(&ok);
        if (!ok || step < 0)
            t.error = tr("'%1' is not a profile step (a number from 0 to %2).")
                          .arg(elided(text))
                          .arg(edited.profileStep(edited.size() - 1));
        else
            t.position = edited.positionOfProfileStep(step);
        break;
    }
    case Kind::AfterNode:
        t.after = edited.analysis()->graph().find(text.toStdString());
        if (!t.after.valid()) t.error = tr("No node named '%1' in this graph.").arg(elided(text));
        break;
    }
    return t;
}
