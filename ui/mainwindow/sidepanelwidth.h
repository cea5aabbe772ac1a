// The right-hand docks share the window's width with the views in proportion: the dock keeps
// the fraction of the window's width last chosen by dragging its edge (remembered:
// AppSettings::sidePanelFraction), so a wide screen gives the live table and the node panel room instead
// of a fixed 560 px that cuts "Why live".
#pragma once
#include <QObject>

class QDockWidget;
class QMainWindow;

class SidePanelWidth : public QObject {
    Q_OBJECT
public:
    static constexpr double kDefaultFraction = 0.36;

    SidePanelWidth(QMainWindow* window, QDockWidget* dock);
    double fraction() const { return fraction_; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QMainWindow* window_;
    QDockWidget* dock_;
    double fraction_ = kDefaultFraction;
    int appliedWidth_ = -1; // the window width the fraction was last applied at
    bool pending_ = false;
    void apply();
};
