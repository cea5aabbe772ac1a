// Timing helpers shared by the UI benchmarks (--benchmark-scrub's hover, key and drop inputs):
// a filter that times every widget's paint event and files it under its panel, a settle loop
// that handles posted events until nothing more paints, and median / p90 / max lines.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <array>
#include <map>
#include <vector>

namespace bench {

enum Bucket { Timeline, Graph, Live, Breakdown, Inspector, Summary, Other, BucketCount };
extern const std::array<const char*, BucketCount> kBucketNames;

// Times every widget paint: the filter delivers the paint event itself, between two clock reads,
// and stops the original delivery. Children get paint events of their own, so nothing is counted
// twice. `firstEnd` is the clock (of `clock`, when set) at the end of each panel's first paint.
class PaintTimer : public QObject {
public:
    std::array<qint64, BucketCount> ns{};
    std::array<qint64, BucketCount> firstEnd{};
    int paints = 0;
    std::map<QString, qint64> byClass; // whole run: "panel / widget class" -> ns
    const QElapsedTimer* clock = nullptr;
    void reset() {
        ns.fill(0);
        firstEnd.fill(-1);
        paints = 0;
    }

protected:
    bool eventFilter(QObject* o, QEvent* e) override;

private:
    bool inside_ = false;
};

// Handles what is pending (posted update requests, layouts, zero timers) until a round paints
// nothing more; returns the clock at the end of the last round that painted, -1 if none did.
qint64 settle(PaintTimer& pt, const QElapsedTimer& clock);
void drain();

struct Series {
    Series() = default;
    explicit Series(QString n) : name(std::move(n)) {}
    QString name;
    std::vector<double> ms;
};
QString statsLine(const Series& s);
QString loadAverage();

} // namespace bench
