// step_json: whole steps of many regions or many calls, written with plain appends.
#include "synth_step.h"

namespace fxmem::synth {

namespace {

void region(std::string& j, std::int64_t& id, const std::string& label) {
    const auto storage = [&](std::int64_t bytes, const char* role, const std::string& lab) {
        j += "{\"id\": " + std::to_string(id++) + ", \"device\": \"cuda:0\", \"nbytes\": " + std::to_string(bytes) +
             ", \"role\": \"" + role + "\"" + (lab.empty() ? std::string() : ", \"label\": \"" + lab + "\"") + "},";
    };
    storage(1000, "parameter", label);
    storage(100, "input", "");
    storage(10, "activation", "");
    storage(1, "output", "");
    storage(1, "tangent", "");
    storage(1000, "gradient", "grad of " + label);
    storage(100, "gradient", "");
}

std::string val(std::int64_t storage) {
    return "{\"storage\": " + std::to_string(storage) +
           ", \"dtype\": \"float32\", \"shape\": [1], \"stride\": [1], \"offset\": 0}";
}

std::string node(const char* name, const char* op, const std::string& inputs, const std::string& v) {
    return std::string("{\"name\": \"") + name + "\", \"op\": \"" + op + "\", \"target\": \"" + name +
           "\", \"inputs\": [" + inputs + "], \"val\": " + v + "}";
}

void graphs(std::string& j, const std::string& name, std::int64_t base) {
    j += "{\"name\": \"" + name + ".forward\", \"kind\": \"forward\", \"nodes\": [" +
         node("primals_1", "placeholder", "", val(base)) + "," + node("primals_2", "placeholder", "", val(base + 1)) +
         "," + node("a", "call_function", "\"primals_1\", \"primals_2\"", val(base + 2)) + "," +
         node("o", "call_function", "\"a\"", val(base + 3)) + "," +
         node("output", "output", "\"o\", \"a\"", "[" + val(base + 3) + ", " + val(base + 2) + "]") + "]},";
    j += "{\"name\": \"" + name + ".backward\", \"kind\": \"backward\", \"nodes\": [" +
         node("a", "placeholder", "", val(base + 2)) + "," + node("tangents_1", "placeholder", "", val(base + 4)) +
         "," + node("gw", "call_function", "\"tangents_1\", \"a\"", val(base + 5)) + "," +
         node("gx", "call_function", "\"tangents_1\", \"a\"", val(base + 6)) + "," +
         node("output", "output", "\"gw\", \"gx\"", "[" + val(base + 5) + ", " + val(base + 6) + "]") + "]},";
}

void close_array(std::string& j) {
    if (j.back() == ',') j.pop_back();
}

} // namespace

std::string step_json(std::size_t regions, std::size_t calls) {
    std::string j = "{\"format\": \"fxmem\", \"version\": 1, \"storages\": [";
    std::int64_t id = 0;
    const std::size_t distinct = calls ? 1 : regions;
    for (std::size_t r = 0; r < distinct; ++r) region(j, id, calls ? "w" : "blocks." + std::to_string(r) + ".w");
    close_array(j);
    j += "], \"graphs\": [";
    for (std::size_t r = 0; r < distinct; ++r)
        graphs(j, "region" + std::to_string(r), static_cast<std::int64_t>(7 * r));
    close_array(j);
    j += "], \"pairs\": [";
    for (std::size_t r = 0; r < distinct; ++r)
        j += "{\"forward\": \"region" + std::to_string(r) + ".forward\", \"backward\": \"region" + std::to_string(r) +
             ".backward\"},";
    close_array(j);
    j += "], \"step\": [";
    const std::size_t runs = calls ? calls : regions;
    const auto entry = [&](std::size_t i, const char* kind) {
        const std::string graph = "region" + std::to_string(calls ? 0 : i) + "." + kind;
        j += "{\"graph\": \"" + graph + "\", \"call\": " + std::to_string(calls ? i : 0) +
             (calls ? ", \"module_prefix\": \"blocks." + std::to_string(i) + "\"" : std::string()) + "},";
    };
    for (std::size_t i = 0; i < runs; ++i) entry(i, "forward");
    for (std::size_t i = runs; i-- > 0;) entry(i, "backward");
    close_array(j);
    j += "]}\n";
    return j;
}

// The whole step's peak by the carry rules (whole_step.h): the last backward run (region 0's),
// after its gx: every parameter (n x 1000 B: no backward holds one), the gradients of the n - 1
// backwards before it (1000 B each), the loss (the last forward's o, 1 B), and its own a (10),
// T (1), G (1000) and GX (100); no saved activation is pending any more.
std::int64_t step_peak(std::size_t runs) {
    const auto n = static_cast<std::int64_t>(runs);
    return n * 1000 + (n - 1) * 1000 + 1 + 10 + 1 + 1000 + 100;
}

} // namespace fxmem::synth
