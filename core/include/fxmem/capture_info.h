// What a file says about how it was captured: the device it stands for and the attention and
// autocast options (the exporter's "producer" keys target, sdpa, autocast, inner). Plain values;
// safe to copy between threads.
#pragma once

#include "fxmem/model.h"

#include <string>

namespace fxmem {

struct CaptureInfo {
    std::string target;   // "cuda", "cpu", or empty when the file does not say (older captures)
    std::string sdpa;     // an attention override ("flash", ...), empty when PyTorch chose
    std::string autocast; // "bfloat16"/"float16" when autocast was forced for the whole graph
    std::string inner;    // the exporter's capture mode ("partition", "eager", ...)

    // "target cuda", "target cpu, sdpa math, autocast bfloat16", or empty.
    [[nodiscard]] std::string summary() const;
};

// Reads the producer's keys; a key that is absent or not a string reads as empty (the producer
// is free-form: a file from another tool may say anything there).
[[nodiscard]] CaptureInfo capture_info(const GraphFile& file);

} // namespace fxmem
