// fxmem --benchmark-scrub --scrub-input drop|pan|zoom: drags and the wheel in the graph view of a shown window and
// times what the user waits for. drop: a node pressed, dragged along the time axis inside its
// legal band and released, then dragged back (each drop an undoable edit), timed from the release
// until the graph view has painted the node at its new place and until every widget has painted,
// with the edit's handlers split by part. pan: middle-button moves of a few pixels along the
// time axis, each timed until the last paint. zoom: wheel notches over the view, in and out,
// each timed until the last paint. pan and zoom act on the Dataflow mode when it is shown. Runs
// synchronously on the GUI thread.
#pragma once
#include "ui/scrubbenchmark.h"

#include <QString>

class MainWindow;

QString runGraphDragBenchmark(MainWindow& window, const ScrubBenchmarkOptions& options);
