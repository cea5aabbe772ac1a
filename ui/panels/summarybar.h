// The headline above the graph: the peak and where it is, the edited schedule's peak and, for a
// graph of a forward/backward pair, the pair's peak. Wires itself to the ViewState. It wraps
// instead of widening the window: its minimum width never comes from its text.
#pragma once
#include <QLabel>

class ViewState;

class SummaryBar : public QLabel {
    Q_OBJECT
public:
    explicit SummaryBar(ViewState* state, QWidget* parent = nullptr);
    // Shown while no scene is (e.g. no file could be opened at start-up).
    void showHint(const QString& hint);
    QSize minimumSizeHint() const override;

public slots:
    void refresh();

protected:
    void changeEvent(QEvent* event) override;

private:
    ViewState* state_;
};
