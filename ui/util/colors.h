// Colours derived from the widget palette so that dark themes read as well as light ones. Views
// call these at paint time (or on QEvent::PaletteChange) instead of caching fixed colours.
#pragma once
#include <fxmem/model.h>
#include <fxmem/op_category.h>

#include <QColor>
#include <QPalette>

namespace colors {

bool isDark(const QPalette& palette);
QColor opColor(fxmem::OpKind op, const QPalette& palette);
// One hue per op category: heavy compute (matmul, attention, convolution) saturated, views and
// copies muted so that the work stands out; collectives in magenta.
QColor categoryColor(fxmem::OpCategory category, const QPalette& palette);
// Net memory change of a node: red for growth, green for release, grey for none; `strength`
// in [0, 1] (log-scaled by the caller) sets the saturation.
QColor deltaColor(double signedStrength, const QPalette& palette);
QColor curve(const QPalette& palette);  // the original profile
QColor edited(const QPalette& palette); // the edited schedule's overlay
QColor peak(const QPalette& palette);
QColor live(const QPalette& palette); // storages live at the cursor
QColor cursor(const QPalette& palette);
QColor mix(const QColor& a, const QColor& b, double t);

} // namespace colors
