// parse_alloc_conf: PYTORCH_CUDA_ALLOC_CONF read as c10 reads it (c10/core/AllocatorConfig.{h,cpp}:
// ConfigTokenizer and AcceleratorAllocatorConfig::parseArgs, then c10/cuda/CUDAAllocatorConfig.cpp's
// parseArgs for the CUDA keys). Messages quote PyTorch's where it has one.
#include "fxmem/caching_allocator.h"
#include "fxmem/error.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <string>
#include <system_error>

namespace fxmem {
namespace {

// ConfigTokenizer: ',', ':', '[' and ']' are tokens of their own, whitespace is dropped, anything
// else accumulates into a word.
std::vector<std::string> tokenize(std::string_view conf) {
    std::vector<std::string> tokens;
    std::string word;
    for (char ch : conf) {
        if (ch == ',' || ch == ':' || ch == '[' || ch == ']') {
            if (!word.empty()) tokens.push_back(std::move(word)), word.clear();
            tokens.emplace_back(1, ch);
        } else if (!std::isspace(static_cast<unsigned char>(ch))) {
            word += ch;
        }
    }
    if (!word.empty()) tokens.push_back(std::move(word));
    return tokens;
}

class Parser {
public:
    explicit Parser(std::string_view conf) : conf_(conf), tokens_(tokenize(conf)) {}

    AllocatorConfig parse() {
        // large_segment_size_mb first: the minimum of max_split_size_mb and the default of
        // max_non_split_rounding_mb follow it (AcceleratorAllocatorConfig::parseArgs).
        for (std::size_t i = 0; i < tokens_.size(); ++i)
            if (tokens_[i] == "large_segment_size_mb") {
                key_ = tokens_[i];
                const std::int64_t mb = unsigned_value(value_after(i));
                if (mb <= 10) fail("CachingAllocator option large_segment_size_mb must be > 10 MB");
                config_.large_segment_size = clamp_mb(mb);
            }
        config_.max_non_split_rounding_size = config_.large_segment_size;

        std::size_t i = 0;
        while (i < tokens_.size()) {
            key_ = tokens_[i];
            value_.clear();
            if (key_ == "," || key_ == ":" || key_ == "[" || key_ == "]")
                throw Error(where() + ": expected a key, got '" + key_ + "'");
            i = parse_key(i);
            if (i + 1 < tokens_.size()) {
                if (tokens_[i + 1] != ",")
                    throw Error(where() + ": expected ',' after the value, got '" + tokens_[i + 1] + "'");
                ++i;
            }
            ++i;
        }
        return config_;
    }

private:
    // Parses the key at i and its value; returns the index of the value's last token.
    std::size_t parse_key(std::size_t i) {
        const std::string& key = tokens_[i];
        const std::size_t v = i;
        if (key == "large_segment_size_mb") {
            value_after(v); // read above
        } else if (key == "max_split_size_mb" || key == "max_non_split_rounding_mb") {
            const std::int64_t mb = unsigned_value(value_after(v));
            const std::int64_t min_mb = config_.large_segment_size / kAllocMiB;
            if (mb < min_mb)
                fail("CachingAllocator option " + key + " too small, must be >= " + std::to_string(min_mb));
            (key == "max_split_size_mb" ? config_.max_split_size : config_.max_non_split_rounding_size) = clamp_mb(mb);
        } else if (key == "garbage_collection_threshold") {
            const double t = double_value(value_after(v));
            if (!(t > 0.0 && t < 1.0)) fail("garbage_collect_threshold is invalid, set it in (0.0, 1.0)");
            config_.garbage_collection_threshold = t;
        } else if (key == "roundup_power2_divisions") {
            return parse_divisions(v);
        } else if (key == "expandable_segments") {
            config_.expandable_segments = bool_value(value_after(v));
        } else if (key == "per_process_memory_fraction") {
            const double f = double_value(value_after(v));
            if (!(f >= 0.0 && f <= 1.0)) fail("per_process_memory_fraction is invalid, set it in [0.0, 1.0]");
            config_.per_process_memory_fraction = f;
        } else if (key == "backend") {
            const std::string& b = value_after(v);
            if (b == "cudaMallocAsync")
                fail("backend:cudaMallocAsync is CUDA's own allocator, not the caching allocator simulated here");
            if (b != "native") fail("Unknown allocator backend, options are native and cudaMallocAsync");
        } else if (key == "release_lock_on_cudamalloc" || key == "pinned_use_cuda_host_register" ||
                   key == "graph_capture_record_stream_reuse" || key == "pinned_use_background_threads" ||
                   key == "throw_on_cudamalloc_oom") {
            bool_value(value_after(v));
        } else if (key == "pinned_num_register_threads") {
            const std::int64_t n = unsigned_value(value_after(v));
            if (!std::has_single_bit(static_cast<std::uint64_t>(n)))
                fail("Number of register threads has to be power of 2, got " + std::to_string(n));
            if (n > 128)
                fail("Number of register threads should be less than or equal to 128, got " + std::to_string(n));
        } else if (key == "pinned_reserve_segment_size_mb") {
            if (unsigned_value(value_after(v)) <= 0) fail("Pinned reserve segment size has to be greater than 0");
        } else {
            throw Error(where() + ": Unrecognized key '" + key + "' in Accelerator allocator config.");
        }
        return v + 2;
    }

    // roundup_power2_divisions:N (every interval) or [boundary_mb:N,...,>:N]
    // (AcceleratorAllocatorConfig::parseRoundUpPower2Divisions).
    std::size_t parse_divisions(std::size_t key_index) {
        auto& divisions = config_.roundup_power2_divisions;
        if (value_after(key_index) != "[") {
            const std::int64_t n = unsigned_value(value_);
            if (!std::has_single_bit(static_cast<std::uint64_t>(n)))
                fail("For roundups, the divisions has to be power of 2 ");
            divisions.fill(n);
            return key_index + 2;
        }
        bool first = true;
        std::size_t last_index = 0;
        std::size_t i = key_index + 3;
        for (;;) {
            if (i >= tokens_.size()) fail("Expected closing bracket ']' but reached end of config");
            if (tokens_[i] == "]") break;
            const std::string& boundary = tokens_[i];
            const std::int64_t n = unsigned_value(value_after(i));
            if (n != 0 && !std::has_single_bit(static_cast<std::uint64_t>(n)))
                fail("For roundups, the divisions has to be power of 2 or 0 to disable roundup ");
            if (boundary == ">") {
                std::fill(divisions.begin() + static_cast<std::ptrdiff_t>(std::min(last_index + 1, divisions.size())),
                          divisions.end(), n);
            } else {
                const std::int64_t mb = unsigned_value(boundary);
                if (!std::has_single_bit(static_cast<std::uint64_t>(mb)))
                    fail("For roundups, the intervals have to be power of 2 (got '" + boundary + "')");
                const std::size_t index = std::min<std::size_t>(
                    static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(mb))) - 1, divisions.size() - 1);
                if (first) std::fill(divisions.begin(), divisions.begin() + static_cast<std::ptrdiff_t>(index), n);
                first = false;
                divisions[index] = n;
                last_index = index;
            }
            i += 3; // boundary ':' value
            if (i < tokens_.size() && tokens_[i] == ",")
                ++i;
            else if (i < tokens_.size() && tokens_[i] != "]")
                fail("expected ',' or ']' in the list, got '" + tokens_[i] + "'");
        }
        return i;
    }

    // The value token of "key:value" whose key is at index k.
    const std::string& value_after(std::size_t k) {
        if (k + 1 >= tokens_.size() || tokens_[k + 1] != ":") fail("expected ':' after '" + tokens_[k] + "'");
        if (k + 2 >= tokens_.size() || tokens_[k + 2] == "," || tokens_[k + 2] == ":" || tokens_[k + 2] == "]")
            fail("missing value");
        value_ = tokens_[k + 2];
        return value_;
    }

    std::int64_t unsigned_value(const std::string& text) {
        std::int64_t n = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (text.empty() || text[0] == '-' || ec == std::errc::invalid_argument || end != text.data() + text.size())
            fail("expected an unsigned integer, got '" + text + "'");
        if (ec == std::errc::result_out_of_range) fail("number out of range: '" + text + "'");
        return n;
    }

    double double_value(const std::string& text) {
        double d = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
        if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
            fail("expected a number, got '" + text + "'");
        return d;
    }

    bool bool_value(const std::string& text) {
        if (text == "True") return true;
        if (text == "False") return false;
        fail("Expected 'True' or 'False' but got '" + text + "'");
    }

    // PyTorch caps a size in MiB at SIZE_MAX / 1 MiB; ours is int64.
    static std::int64_t clamp_mb(std::int64_t mb) {
        return std::min(mb, std::numeric_limits<std::int64_t>::max() / kAllocMiB) * kAllocMiB;
    }

    std::string where() const { return "PYTORCH_CUDA_ALLOC_CONF '" + std::string(conf_) + "', key '" + key_ + "'"; }

    [[noreturn]] void fail(const std::string& what) const {
        std::string w = where();
        if (!value_.empty()) w += " value '" + value_ + "'";
        throw Error(w + ": " + what);
    }

    std::string_view conf_;
    std::vector<std::string> tokens_;
    AllocatorConfig config_;
    std::string key_, value_;
};

} // namespace

AllocatorConfig parse_alloc_conf(std::string_view conf) { return Parser(conf).parse(); }

} // namespace fxmem
