// qcustomplot.h uses Qt's `foreach` in two inline templates, which QT_NO_FOREACH (on for this
// library) removes. Include QCustomPlot through this header: it maps those two loops to a
// range-for while the header is parsed.
#pragma once
#ifdef QT_NO_FOREACH
#define foreach(variable, container) for (variable : container)
#include <qcustomplot.h>
#undef foreach
#else
#include <qcustomplot.h>
#endif
