// The reader's errors: the place being read ("graph 'g', node 'n'", "storages[3] (id 7)"), thrown
// as a ReadError with the offset it points at; format() words the message, at the edge.
#include "io/json_text.h"
#include "io/reader.h"
#include "model/quote.h"

namespace fxmem::reader {

using detail::quote;

std::string format(const ReadError& e, std::string_view text) {
    std::string out =
        e.offset == ReadError::kNoOffset ? e.source + ": " : json_text::location(e.source, text, e.offset);
    if (!e.place.empty()) out += e.place + ": ";
    out += e.what;
    return out;
}

// The byte the parser read last: where an error found in a callback points.
std::size_t Reader::cursor_offset() const {
    const auto read = static_cast<std::size_t>(cursor_ - text_.data());
    return read > 0 ? read - 1 : 0;
}

// The innermost entity being read: "graph 'g', node 'n'", "storages[3] (id 7)", "pairs[0]"...
std::string Reader::place() const {
    std::string p = "top level";
    for (Frame f : frames_) {
        switch (f) {
        case Frame::Storages: p = "storages[" + std::to_string(storage_count_) + "]"; break;
        case Frame::Storage:
            if (storage_id_known_) p += " (id " + std::to_string(storage_id_) + ")";
            break;
        case Frame::Graphs: p = "graphs[" + std::to_string(graph_count_) + "]"; break;
        case Frame::Graph:
            if (!graph_name_.empty()) p = "graph " + quote(graph_name_);
            break;
        case Frame::Nodes: p += ", nodes[" + std::to_string(node_count_) + "]"; break;
        case Frame::Node:
            if (!rec_.name.empty()) p = p.substr(0, p.rfind(", nodes[")) + ", node " + quote(rec_.name);
            break;
        case Frame::Pairs: p = "pairs[" + std::to_string(pair_count_) + "]"; break;
        case Frame::Schedules: p = "schedules[" + std::to_string(schedule_count_) + "]"; break;
        case Frame::Steps: p = "step[" + std::to_string(step_count_) + "]"; break;
        case Frame::Symbols: p = "symbols[" + std::to_string(symbol_count_) + "]"; break;
        case Frame::Symbol:
            if (!symbol_.symbol.name.empty()) p += " (" + quote(symbol_.symbol.name) + ")";
            break;
        case Frame::Schedule:
            if (!schedule_.name.empty()) p += " (" + quote(schedule_.name) + ")";
            break;
        case Frame::Program: p += ", program"; break;
        case Frame::Buffers: p += ".buffers[" + std::to_string(buffer_count_) + "]"; break;
        case Frame::Kernels: p += ".kernels[" + std::to_string(kernel_count_) + "]"; break;
        default: break;
        }
    }
    return p;
}

void Reader::fail(std::string what) const { fail_at(cursor_offset(), place(), std::move(what)); }

void Reader::fail_at(std::size_t offset, std::string place, std::string what) const {
    throw ReadError{file_.source, offset, std::move(place), std::move(what)};
}

// "'nbytes' must be an integer >= 0, got -3", from the slot table.
void Reader::wrong(Slot s, const std::string& got) const {
    if (s == Slot::Root) fail_at(cursor_offset(), {}, "the top level must be a JSON object, got " + got);
    fail(field_name(s) + " must be " + spec(s).expected + ", got " + got);
}

void Reader::missing(Slot s) const { fail("missing " + field_name(s)); }

} // namespace fxmem::reader
