#include "timeline/graphpoints.h"

void setGraphPoints(QCPGraph* graph, const QVector<double>& keys, const QVector<double>& values) {
    QCPGraphDataContainer* data = graph->data().data();
    data->clear(); // keeps the capacity of an unshared container
    for (qsizetype i = 0; i < keys.size(); ++i) data->add(QCPGraphData(keys[i], values[i])); // appended: sorted
}
