#include "schedule/schedulestatus.h"

#include "util/colors.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

ScheduleStatus::ScheduleStatus(QWidget* parent) : QWidget(parent) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 4, 0);
    row->setSpacing(2); // the dock's spacing
    label_ = new QLabel(this);
    label_->setObjectName(QStringLiteral("scheduleStatus"));
    label_->setWordWrap(true);
    // A long node name must not widen the dock: the label takes the width it is given and clips;
    // the tooltip keeps the whole text.
    label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label_->setContentsMargins(4, 2, 4, 2);
    row->addWidget(label_, 1);
    offer_ = new QToolButton(this);
    offer_->setObjectName(QStringLiteral("moveWithInputs"));
    offer_->hide();
    connect(offer_, &QToolButton::clicked, this, [this] {
        if (const auto act = act_) act();
    });
    row->addWidget(offer_);
}

void ScheduleStatus::say(const QString& text, bool refusal) {
    offer_->hide();
    label_->setText(text);
    label_->setToolTip(text);
    QPalette p = palette();
    if (refusal) p.setColor(QPalette::WindowText, colors::deltaColor(1.0, palette()));
    label_->setPalette(p);
}

QString ScheduleStatus::text() const { return label_->toolTip(); }

void ScheduleStatus::offer(const QString& text, std::function<void()> act) {
    act_ = std::move(act);
    offer_->setText(text);
    offer_->show();
}

void ScheduleStatus::clear() { label_->clear(); }
