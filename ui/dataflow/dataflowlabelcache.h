// The node boxes' two lines of text (op and shape), elided to their box, kept from frame to
// frame by the view: formatting and eliding them anew was a quarter of a scrub frame's paint
// (1.6 ms for 60 boxes on the flat 100k pair). An entry holds while the layouts' revision, the
// zoom and the font stay; a change of any of them makes every entry stale at once (a stamp per
// entry, so a zoom frame does not clear 100k strings). GUI thread only.
#pragma once
#include <QFont>
#include <QString>

#include <array>
#include <cstdint>
#include <vector>

class DataflowLabelCache {
public:
    using Lines = std::array<QString, 2>;

    // The key of this frame's entries; entries made under another are stale.
    void setKey(std::uint64_t revision, double scale, const QFont& font) {
        if (revision == revision_ && scale == scale_ && font == font_ && generation_ != 0) return;
        revision_ = revision;
        scale_ = scale;
        font_ = font;
        ++generation_;
    }
    // Box `box` of segment `segment` (of `boxes`): its lines, made by make() when stale.
    template <class Make>
    const Lines& get(std::size_t segment, std::uint32_t box, std::size_t boxes, Make&& make) {
        if (segments_.size() <= segment) segments_.resize(segment + 1);
        Segment& s = segments_[segment];
        if (s.stamp.size() != boxes) {
            s.stamp.assign(boxes, 0);
            s.lines.assign(boxes, {});
        }
        if (s.stamp[box] != generation_) {
            s.lines[box] = make();
            s.stamp[box] = generation_;
        }
        return s.lines[box];
    }

private:
    struct Segment {
        std::vector<std::uint32_t> stamp; // the generation each entry was made in; 0: never
        std::vector<Lines> lines;
    };
    std::uint64_t revision_ = 0;
    double scale_ = 0;
    QFont font_;
    std::uint32_t generation_ = 0;
    std::vector<Segment> segments_;
};
