// Liang-Barsky: the part of a segment inside a closed rectangle, as the range of its parameter.
// The painter cuts long edges to the widget with it; the spatial index's test checks its answers
// against it. Pure function, any thread.
#pragma once
#include <algorithm>

// The segment a + t (b - a), t in [0, 1], inside [x0, x1] x [y0, y1]: true with the range
// [t0, t1] of t inside, false when no point is.
inline bool clipSegment(double ax, double ay, double bx, double by, double x0, double y0, double x1, double y1,
                        double& t0, double& t1) {
    t0 = 0;
    t1 = 1;
    const double dx = bx - ax, dy = by - ay;
    const double p[4] = {-dx, dx, -dy, dy}, q[4] = {ax - x0, x1 - ax, ay - y0, y1 - ay};
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0) return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    return true;
}
