// The main window's centre: the "no counted storage" banner, the summary bar and the find bar over
// a vertical splitter of the graph view and the timeline (with its mode bar above it). It makes
// those widgets and enters them in the window's parts; the window wires them.
#pragma once
#include <QByteArray>
#include <QWidget>

class LoadBanner;
class QSplitter;
class ViewState;
struct WindowParts;

class CentralArea : public QWidget {
    Q_OBJECT
public:
    CentralArea(ViewState* state, WindowParts& parts, QWidget* parent = nullptr);
    LoadBanner* banner() const { return banner_; }
    // The splitter's sizes, as AppSettings keeps them; a first start gets the default share.
    QByteArray saveSplitter() const;
    void restoreSplitter(const QByteArray& state);

private:
    LoadBanner* banner_ = nullptr;
    QSplitter* splitter_ = nullptr;
};
