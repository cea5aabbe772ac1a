#include "schedule/schedulepicker.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

SchedulePicker::SchedulePicker(QWidget* parent) : QWidget(parent) {
    auto* h = new QHBoxLayout(this);
    h->setContentsMargins(4, 0, 4, 0);
    combo = new QComboBox(this);
    combo->setObjectName(QStringLiteral("schedulePicker"));
    combo->setToolTip(
        tr("Which order to edit: the graph's original order, a schedule stored in the file, or your edit"));
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
    compare = new QToolButton(this);
    compare->setText(tr("Compare"));
    compare->setCheckable(true);
    compare->setToolTip(tr("Overlay two orders on the timeline and list the nodes that moved"));
    optimize = new QToolButton(this);
    optimize->setText(tr("Optimize"));
    optimize->setToolTip(
        tr("Search an order with a lower peak (exact on small graphs); the result is one undoable edit"));
    suggest = new QToolButton(this);
    suggest->setText(tr("Suggest"));
    suggest->setCheckable(true);
    suggest->setToolTip(tr("The single moves that lower the current peak most; click one to apply it"));
    h->addWidget(new QLabel(tr("Schedule"), this));
    h->addWidget(combo, 1);
    h->addWidget(compare);
    h->addWidget(optimize);
    h->addWidget(suggest);
}
