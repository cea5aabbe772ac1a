// Byte sizes for display. The unit system is an app-wide preference (kept in QSettings by the
// main window): binary (KiB, MiB, GiB as PyTorch reports) or decimal (kB, MB, GB).
#pragma once
#include "fxmem/units.h"

#include <QString>

#include <cstdint>

using ByteUnits = fxmem::ByteUnits;

// The units the formatters below use. Only ViewState::setUnits changes them: it owns the units
// and announces a change (unitsChanged) to every view that shows bytes, which a write from
// anywhere else would bypass, leaving texts in the old units. Tests change them the same way.
ByteUnits byteUnits();
class ByteUnitsWriter {
    friend class ViewState;
    static void set(ByteUnits units);
};

// Three significant digits: "0 B", "1023 B", "1.00 KiB", "12.5 MiB", "-3.00 GiB".
QString formatBytes(std::int64_t bytes);
QString formatBytes(double bytes);
// "+1.20 MiB (+3.4 %)" relative to `base`; "±0 B" for no change.
QString formatDelta(std::int64_t delta, std::int64_t base);
// The unit base (1024 or 1000) and the unit names from bytes upward.
double unitBase();
QString unitName(int power);
