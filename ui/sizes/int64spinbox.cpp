#include "sizes/int64spinbox.h"

#include <QLineEdit>

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

namespace {
std::optional<std::int64_t> parse(const QString& text) {
    const std::string s = text.trimmed().toStdString();
    std::int64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}
} // namespace

Int64SpinBox::Int64SpinBox(QWidget* parent) : QAbstractSpinBox(parent) {
    setAccelerated(true);
    setCorrectionMode(QAbstractSpinBox::CorrectToNearestValue);
    lineEdit()->setText(QString::number(value_));
    connect(this, &QAbstractSpinBox::editingFinished, this, &Int64SpinBox::commit);
}

void Int64SpinBox::setRange(std::int64_t minimum, std::int64_t maximum) {
    min_ = minimum;
    max_ = std::max(minimum, maximum);
    setValue(value_);
}

void Int64SpinBox::setValue(std::int64_t value) {
    value = std::clamp(value, min_, max_);
    const bool changed = value != value_;
    value_ = value;
    lineEdit()->setText(QString::number(value_));
    if (changed) emit valueChanged(value_);
}

void Int64SpinBox::commit() {
    const std::optional<std::int64_t> v = parse(lineEdit()->text());
    if (v)
        setValue(*v);
    else
        lineEdit()->setText(QString::number(value_));
}

void Int64SpinBox::stepBy(int steps) {
    commit();
    // Saturating: a step past either end stays at the end.
    std::int64_t v = value_;
    if (steps > 0)
        v = v > max_ - steps ? max_ : v + steps;
    else if (steps < 0)
        v = v < min_ - steps ? min_ : v + steps;
    setValue(v);
    selectAll();
}

QValidator::State Int64SpinBox::validate(QString& input, int& /*pos*/) const {
    const QString t = input.trimmed();
    if (t.isEmpty() || (t == QStringLiteral("-") && min_ < 0)) return QValidator::Intermediate;
    const std::optional<std::int64_t> v = parse(t);
    if (!v) return QValidator::Invalid; // not digits, or too many for int64
    if (*v > max_) return QValidator::Invalid;
    return *v < min_ ? QValidator::Intermediate : QValidator::Acceptable; // "1" on the way to "12"
}

void Int64SpinBox::fixup(QString& input) const {
    const std::optional<std::int64_t> v = parse(input);
    input = QString::number(v ? std::clamp(*v, min_, max_) : value_);
}

QAbstractSpinBox::StepEnabled Int64SpinBox::stepEnabled() const {
    StepEnabled e = StepNone;
    if (value_ > min_) e |= StepDownEnabled;
    if (value_ < max_) e |= StepUpEnabled;
    return e;
}

QSize Int64SpinBox::sizeHint() const {
    // Room for seven digits and the arrows; longer values scroll inside.
    return {fontMetrics().horizontalAdvance(QStringLiteral("0000000")) + 36, QAbstractSpinBox::sizeHint().height()};
}
