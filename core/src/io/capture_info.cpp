// capture_info: the producer's target keys, read from the re-serialised "producer" object.
#include "fxmem/capture_info.h"

#include <nlohmann/json.hpp>

namespace fxmem {

namespace {

std::string string_key(const nlohmann::json& producer, const char* key) {
    const auto it = producer.find(key);
    return it != producer.end() && it->is_string() ? it->get<std::string>() : std::string();
}

} // namespace

std::string CaptureInfo::summary() const {
    if (target.empty()) return {};
    std::string out = "target " + target;
    if (!sdpa.empty()) out += ", sdpa " + sdpa;
    if (!autocast.empty()) out += ", autocast " + autocast;
    return out;
}

CaptureInfo capture_info(const GraphFile& file) {
    CaptureInfo info;
    if (file.producer_json.empty()) return info;
    // The reader checked the text is JSON; parse without exceptions all the same.
    const nlohmann::json producer = nlohmann::json::parse(file.producer_json, nullptr, false);
    if (!producer.is_object()) return info;
    info.target = string_key(producer, "target");
    info.sdpa = string_key(producer, "sdpa");
    info.autocast = string_key(producer, "autocast");
    info.inner = string_key(producer, "inner");
    return info;
}

} // namespace fxmem
