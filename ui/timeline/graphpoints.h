// Replaces a graph's points in place: the container keeps its storage, so a resample of the same
// width allocates nothing.
#pragma once
#include "timeline/qcp.h"

// `keys` ascending, one value per key.
void setGraphPoints(QCPGraph* graph, const QVector<double>& keys, const QVector<double>& values);
