// fxmem --benchmark-sizes: what a move of the Sizes bar costs on the view shown. The scene alone
// (the worker's part: the file copied and bound, analysed, laid out) is timed on this thread;
// then end to end in the window: a value set in the bar until the new scene is shown and every
// panel has painted, and until the timeline's stacked bands (a job of their own) are drawn too.
// The values walk the bar's fit symbol (the batch) across its slider, so each one differs.
#pragma once
#include <QString>

class MainWindow;

// The report: one line per measured quantity with median, p90 and max in ms; `steps` values.
QString runSizesBenchmark(MainWindow& window, int steps);
