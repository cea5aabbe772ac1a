// The file's "distributed" object (docs/format.md): the rank a sharded step was captured for,
// the world size and the device meshes. It is small, so the reader keeps its text while reading
// (as it keeps "producer") and checks it here, naming the place of anything wrong
// ("distributed.meshes[0].coordinate[1]").
#include "io/reader.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace fxmem::reader {

namespace {

using nlohmann::json;

std::string kind_of(const json& v) {
    if (v.is_null()) return "null";
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer()) return v.dump();
    if (v.is_number()) return v.dump();
    if (v.is_string()) return "a string";
    if (v.is_array()) return "an array";
    return "an object";
}

} // namespace

void Reader::resolve_distributed() {
    if (distributed_json_.empty()) return;
    const json doc = json::parse(distributed_json_, nullptr, false);
    const auto bad = [&](const std::string& place, const std::string& what) {
        fail_at(distributed_offset_, "distributed" + place, what);
    };
    const auto integer = [&](const json& v, const std::string& place, std::int64_t min,
                             const char* expected) -> std::int64_t {
        if (!v.is_number_integer() ||
            (v.is_number_unsigned() &&
             v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))
            bad(place, std::string("must be ") + expected + ", got " + kind_of(v));
        const auto n = v.get<std::int64_t>();
        if (n < min) bad(place, std::string("must be ") + expected + ", got " + std::to_string(n));
        return n;
    };
    if (!doc.is_object()) bad("", "must be an object or null");
    for (const char* key : {"rank", "world_size", "meshes"})
        if (!doc.contains(key)) bad("", std::string("missing '") + key + "'");
    DistributedInfo info;
    info.world_size = integer(doc["world_size"], ".world_size", 1, "an integer >= 1");
    info.rank = integer(doc["rank"], ".rank", 0, "an integer >= 0");
    if (info.rank >= info.world_size)
        bad(".rank", std::to_string(info.rank) + " is not below the world size " + std::to_string(info.world_size));
    const json& meshes = doc["meshes"];
    if (!meshes.is_array()) bad(".meshes", "must be an array, got " + kind_of(meshes));
    for (std::size_t m = 0; m < meshes.size(); ++m) {
        const std::string at = ".meshes[" + std::to_string(m) + "]";
        const json& mesh = meshes[m];
        if (!mesh.is_object()) bad(at, "must be an object, got " + kind_of(mesh));
        for (const char* key : {"device_type", "shape"})
            if (!mesh.contains(key)) bad(at, std::string("missing '") + key + "'");
        DeviceMeshInfo out;
        const json& device = mesh["device_type"];
        if (!device.is_string() || device.get<std::string>().empty())
            bad(at + ".device_type", "must be a non-empty string, got " + kind_of(device));
        out.device_type = device.get<std::string>();
        const json& shape = mesh["shape"];
        if (!shape.is_array() || shape.empty())
            bad(at + ".shape", "must be a non-empty array of integers >= 1, got " + kind_of(shape));
        std::int64_t ranks = 1;
        for (std::size_t d = 0; d < shape.size(); ++d) {
            const std::int64_t n = integer(shape[d], at + ".shape[" + std::to_string(d) + "]", 1, "an integer >= 1");
            if (n > info.world_size || ranks > info.world_size / n)
                bad(at + ".shape", "holds more ranks than the world size " + std::to_string(info.world_size));
            ranks *= n;
            out.shape.push_back(n);
        }
        if (const auto it = mesh.find("dim_names"); it != mesh.end() && !it->is_null()) {
            if (!it->is_array() || it->size() != shape.size())
                bad(at + ".dim_names", "must be an array of " + std::to_string(shape.size()) +
                                           " strings (one per dimension) or null, got " + kind_of(*it));
            std::vector<std::string> names;
            for (std::size_t d = 0; d < it->size(); ++d) {
                if (!(*it)[d].is_string())
                    bad(at + ".dim_names[" + std::to_string(d) + "]", "must be a string, got " + kind_of((*it)[d]));
                names.push_back((*it)[d].get<std::string>());
            }
            out.dim_names = std::move(names);
        }
        if (const auto it = mesh.find("coordinate"); it != mesh.end() && !it->is_null()) {
            if (!it->is_array() || it->size() != shape.size())
                bad(at + ".coordinate", "must be an array of " + std::to_string(shape.size()) +
                                            " integers (one per dimension) or null, got " + kind_of(*it));
            std::vector<std::int64_t> coordinate;
            for (std::size_t d = 0; d < it->size(); ++d) {
                const std::string place = at + ".coordinate[" + std::to_string(d) + "]";
                const std::int64_t c = integer((*it)[d], place, 0, "an integer >= 0");
                if (c >= out.shape[d])
                    bad(place, std::to_string(c) + " is not below the mesh's size " + std::to_string(out.shape[d]) +
                                   " in that dimension");
                coordinate.push_back(c);
            }
            out.coordinate = std::move(coordinate);
        }
        info.meshes.push_back(std::move(out));
    }
    if (const auto it = doc.find("parameters"); it != doc.end() && !it->is_null()) {
        if (!it->is_array()) bad(".parameters", "must be an array or null, got " + kind_of(*it));
        for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string at = ".parameters[" + std::to_string(i) + "]";
            const json& p = (*it)[i];
            if (!p.is_object()) bad(at, "must be an object, got " + kind_of(p));
            for (const char* key : {"name", "shape", "local_shape", "nbytes"})
                if (!p.contains(key)) bad(at, std::string("missing '") + key + "'");
            ParameterShard out;
            if (!p["name"].is_string()) bad(at + ".name", "must be a string, got " + kind_of(p["name"]));
            out.name = p["name"].get<std::string>();
            for (const char* key : {"shape", "local_shape"}) {
                const json& dims = p[key];
                if (!dims.is_array()) bad(at + "." + key, "must be an array of integers >= 0, got " + kind_of(dims));
                std::vector<std::int64_t>& to = std::string_view(key) == "shape" ? out.shape : out.local_shape;
                for (std::size_t d = 0; d < dims.size(); ++d)
                    to.push_back(
                        integer(dims[d], at + "." + key + "[" + std::to_string(d) + "]", 0, "an integer >= 0"));
            }
            if (out.local_shape.size() != out.shape.size())
                bad(at + ".local_shape", "has " + std::to_string(out.local_shape.size()) + " dimensions, 'shape' has " +
                                             std::to_string(out.shape.size()));
            out.nbytes = integer(p["nbytes"], at + ".nbytes", 0, "an integer >= 0");
            info.parameters.push_back(std::move(out));
        }
    }
    file_.distributed = std::move(info);
}

} // namespace fxmem::reader
