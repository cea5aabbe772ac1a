// What nearly every file of fxmem_ui parses, precompiled once (ui/CMakeLists.txt): Qt's widgets
// (~110k preprocessed lines behind one <QWidget>) and QCustomPlot through qcp.h (its header pulls
// in all of QtCore, QtGui, QtWidgets and QtPrintSupport: ~224k lines), and the standard headers
// most files use. A file still includes what it uses: a build with
// -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON compiles without this.
#pragma once
#include "timeline/qcp.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>
