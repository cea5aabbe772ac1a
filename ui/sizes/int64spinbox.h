// A number field for 64-bit values (QSpinBox holds an int): digits only, any value in
// [minimum, maximum], committed on Enter, on leaving the field and on each arrow step.
#pragma once
#include <QAbstractSpinBox>

#include <cstdint>

class Int64SpinBox : public QAbstractSpinBox {
    Q_OBJECT
public:
    explicit Int64SpinBox(QWidget* parent = nullptr);

    void setRange(std::int64_t minimum, std::int64_t maximum);
    std::int64_t minimum() const { return min_; }
    std::int64_t maximum() const { return max_; }
    std::int64_t value() const { return value_; }
    // Clamped to the range; emits valueChanged when it changes.
    void setValue(std::int64_t value);

    void stepBy(int steps) override;
    QValidator::State validate(QString& input, int& pos) const override;
    void fixup(QString& input) const override;
    QSize sizeHint() const override;

signals:
    void valueChanged(std::int64_t value);

protected:
    StepEnabled stepEnabled() const override;

private:
    void commit();
    std::int64_t min_ = 0, max_ = INT64_MAX, value_ = 0;
};
