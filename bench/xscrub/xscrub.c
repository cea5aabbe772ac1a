/* xscrub: how long a real fxmem window on an X server takes to show a scrub step. It moves the
 * pointer (hover) or presses Right (key) through the X server, then polls a screen region (the
 * live panel's "Step N" header, say) with XGetImage until its pixels change, and prints the
 * median, p90 and max of those delays. Not part of the build (Xlib, XTest):
 *   cc -O2 -o xscrub bench/xscrub/xscrub.c -lX11 -l:libXtst.so.6
 *   xscrub hover X0 X1 Y STEPS RX RY RW RH     (pointer from X0 to X1 at height Y)
 *   xscrub key   X  Y  STEPS RX RY RW RH       (a click at X,Y for focus, then STEPS Right keys)
 *   xscrub drag  X0 X1 Y STEPS RX RY RW RH     (press at X0,Y, STEPS moves to X1, release: each
 *                                               move, then the drop, until the region changes)
 *   xscrub release RX RY RW RH                   (releases button 1, held by another tool, e.g. an
 *                                               xdotool drag in a list: the drop until the region changes)
 * A step that changes nothing within 500 ms counts as 500 ms. 40 ms of quiet between steps. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int XTestFakeKeyEvent(Display*, unsigned int, Bool, unsigned long);
int XTestFakeButtonEvent(Display*, unsigned int, Bool, unsigned long);

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static XImage* grab(Display* d, int x, int y, int w, int h) {
    return XGetImage(d, DefaultRootWindow(d), x, y, (unsigned)w, (unsigned)h, AllPlanes, ZPixmap);
}

static int same(const XImage* a, const XImage* b) {
    return a->bytes_per_line * a->height == b->bytes_per_line * b->height &&
           memcmp(a->data, b->data, (size_t)a->bytes_per_line * (size_t)a->height) == 0;
}

int main(int argc, char** argv) {
    if (argc == 6 && strcmp(argv[1], "release") == 0) {
        Display* d = XOpenDisplay(NULL);
        if (!d) return 1;
        const int rx = atoi(argv[2]), ry = atoi(argv[3]), rw = atoi(argv[4]), rh = atoi(argv[5]);
        XImage* before = grab(d, rx, ry, rw, rh);
        XTestFakeButtonEvent(d, 1, False, CurrentTime);
        XFlush(d);
        const double t0 = now_ms();
        double t = 0;
        for (;;) {
            XImage* img = grab(d, rx, ry, rw, rh);
            t = now_ms() - t0;
            const int changed = img && before && !same(before, img);
            if (img) XDestroyImage(img);
            if (changed || t > 2000) break;
        }
        printf("release: first change of region %dx%d+%d+%d after %.1f ms\n", rw, rh, rx, ry, t);
        XCloseDisplay(d);
        return 0;
    }
    const int drag = argc == 10 && strcmp(argv[1], "drag") == 0;
    const int hover = drag || (argc == 10 && strcmp(argv[1], "hover") == 0);
    const int key = argc == 9 && strcmp(argv[1], "key") == 0;
    if (!hover && !key) {
        fprintf(stderr, "usage: xscrub hover|drag X0 X1 Y STEPS RX RY RW RH | xscrub key X Y STEPS RX RY RW RH\n");
        return 2;
    }
    Display* d = XOpenDisplay(NULL);
    if (!d) {
        fprintf(stderr, "xscrub: cannot open the display\n");
        return 1;
    }
    const int steps = atoi(argv[hover ? 5 : 4]);
    const int rx = atoi(argv[hover ? 6 : 5]), ry = atoi(argv[hover ? 7 : 6]), rw = atoi(argv[hover ? 8 : 7]),
              rh = atoi(argv[hover ? 9 : 8]);
    double* lat = calloc((size_t)steps, sizeof(double));
    const Window root = DefaultRootWindow(d);
    if (key) {
        XWarpPointer(d, None, root, 0, 0, 0, 0, atoi(argv[2]), atoi(argv[3]));
        XTestFakeButtonEvent(d, 1, True, CurrentTime);
        XTestFakeButtonEvent(d, 1, False, CurrentTime);
        XFlush(d);
        usleep(300000);
    } else {
        XWarpPointer(d, None, root, 0, 0, 0, 0, atoi(argv[2]), atoi(argv[4]));
        XSync(d, False);
        usleep(300000);
        if (drag) {
            XTestFakeButtonEvent(d, 1, True, CurrentTime);
            XSync(d, False);
            usleep(100000);
        }
    }
    const KeyCode right = XKeysymToKeycode(d, XK_Right);
    int n = 0;
    for (int i = 0; i < steps; ++i) {
        XImage* before = grab(d, rx, ry, rw, rh);
        if (!before) return 1;
        if (hover) {
            const int x0 = atoi(argv[2]), x1 = atoi(argv[3]);
            XWarpPointer(d, None, root, 0, 0, 0, 0, x0 + (x1 - x0) * (i + 1) / steps, atoi(argv[4]));
        } else {
            XTestFakeKeyEvent(d, right, True, CurrentTime);
            XTestFakeKeyEvent(d, right, False, CurrentTime);
        }
        XFlush(d);
        const double t0 = now_ms();
        double t = t0;
        for (;;) {
            XImage* img = grab(d, rx, ry, rw, rh);
            t = now_ms();
            const int changed = img && !same(before, img);
            if (img) XDestroyImage(img);
            if (changed || t - t0 > 500) break;
        }
        lat[n++] = t - t0;
        XDestroyImage(before);
        usleep(40000);
    }
    double drop = -1;
    if (drag) {
        XImage* before = grab(d, rx, ry, rw, rh);
        XTestFakeButtonEvent(d, 1, False, CurrentTime);
        XFlush(d);
        const double t0 = now_ms();
        for (;;) {
            XImage* img = grab(d, rx, ry, rw, rh);
            drop = now_ms() - t0;
            const int changed = img && !same(before, img);
            if (img) XDestroyImage(img);
            if (changed || drop > 2000) break;
        }
        XDestroyImage(before);
    }
    qsort(lat, (size_t)n, sizeof(double), cmp);
    printf("%s: %d steps, first change of region %dx%d+%d+%d after: median %.1f ms, p90 %.1f ms, max %.1f ms\n",
           argv[1], n, rw, rh, rx, ry, n % 2 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2,
           lat[(9 * n + 9) / 10 - 1], lat[n - 1]);
    if (drag) printf("drop: first change of the region after the release: %.1f ms\n", drop);
    XCloseDisplay(d);
    free(lat);
    return 0;
}
