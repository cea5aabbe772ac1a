// The memory_viz export's pickle writer, byte for byte: a mixed object against the bytes Python's
// pickle.Pickler(protocol=2) writes for it with fast = True (no memo), the batches of 1000 that
// pickle writes (and MemoryViz.js needs), UTF-8 repaired, and misuse refused.
#include "export/pickle_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

using fxmem::detail::PickleWriter;

namespace {

std::string bytes(const unsigned char* data, std::size_t n) { return {reinterpret_cast<const char*>(data), n}; }

} // namespace

TEST(PickleWriter, MixedObjectIsPythonsPickle) {
    // Python 3.11: b = io.BytesIO(); p = pickle.Pickler(b, protocol=2); p.fast = True; p.dump(o) with
    // o = {'none': None, 't': True, 'f': False,
    //      'ints': [0, 255, 256, 65535, 65536, -1, 2**31-1, -2**31, 2**31, -2**31-1, 2**63-1, -2**63, 2**40],
    //      's': 'café → x', 'bad': 'a\ufffdb', 'one': {'k': [7]}, 'tup': [(), (1, 2), (1, 2, 3, 4)]}
    static const unsigned char expected[] = {
        0x80, 0x02, 0x7d, 0x28, 0x58, 0x04, 0x00, 0x00, 0x00, 0x6e, 0x6f, 0x6e, 0x65, 0x4e, 0x58, 0x01, 0x00,
        0x00, 0x00, 0x74, 0x88, 0x58, 0x01, 0x00, 0x00, 0x00, 0x66, 0x89, 0x58, 0x04, 0x00, 0x00, 0x00, 0x69,
        0x6e, 0x74, 0x73, 0x5d, 0x28, 0x4b, 0x00, 0x4b, 0xff, 0x4d, 0x00, 0x01, 0x4d, 0xff, 0xff, 0x4a, 0x00,
        0x00, 0x01, 0x00, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4a, 0xff, 0xff, 0xff, 0x7f, 0x4a, 0x00, 0x00, 0x00,
        0x80, 0x8a, 0x05, 0x00, 0x00, 0x00, 0x80, 0x00, 0x8a, 0x05, 0xff, 0xff, 0xff, 0x7f, 0xff, 0x8a, 0x08,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x8a, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x80, 0x8a, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x65, 0x58, 0x01, 0x00, 0x00, 0x00, 0x73, 0x58,
        0x0b, 0x00, 0x00, 0x00, 0x63, 0x61, 0x66, 0xc3, 0xa9, 0x20, 0xe2, 0x86, 0x92, 0x20, 0x78, 0x58, 0x03,
        0x00, 0x00, 0x00, 0x62, 0x61, 0x64, 0x58, 0x05, 0x00, 0x00, 0x00, 0x61, 0xef, 0xbf, 0xbd, 0x62, 0x58,
        0x03, 0x00, 0x00, 0x00, 0x6f, 0x6e, 0x65, 0x7d, 0x58, 0x01, 0x00, 0x00, 0x00, 0x6b, 0x5d, 0x4b, 0x07,
        0x61, 0x73, 0x58, 0x03, 0x00, 0x00, 0x00, 0x74, 0x75, 0x70, 0x5d, 0x28, 0x29, 0x4b, 0x01, 0x4b, 0x02,
        0x86, 0x28, 0x4b, 0x01, 0x4b, 0x02, 0x4b, 0x03, 0x4b, 0x04, 0x74, 0x65, 0x75, 0x2e};
    std::ostringstream out;
    PickleWriter w(out);
    w.begin_dict(8);
    w.key("none");
    w.none();
    w.key("t");
    w.boolean(true);
    w.key("f");
    w.boolean(false);
    w.key("ints");
    const std::int64_t ints[] = {0,
                                 255,
                                 256,
                                 65535,
                                 65536,
                                 -1,
                                 2147483647,
                                 -2147483648LL,
                                 2147483648LL,
                                 -2147483649LL,
                                 std::numeric_limits<std::int64_t>::max(),
                                 std::numeric_limits<std::int64_t>::min(),
                                 std::int64_t{1} << 40};
    w.begin_list(std::size(ints));
    for (std::int64_t v : ints) w.integer(v);
    w.end();
    w.key("s");
    w.string("caf\xc3\xa9 \xe2\x86\x92 x");
    w.key("bad");
    w.string("a\xff"
             "b"); // an invalid byte becomes U+FFFD
    w.key("one");
    w.begin_dict(1);
    w.key("k");
    w.begin_list(1);
    w.integer(7);
    w.end();
    w.end();
    w.key("tup");
    w.begin_list(3);
    w.begin_tuple(0);
    w.end();
    w.begin_tuple(2);
    w.integer(1);
    w.integer(2);
    w.end();
    w.begin_tuple(4);
    for (int i = 1; i <= 4; ++i) w.integer(i);
    w.end();
    w.end();
    w.end();
    w.finish();
    EXPECT_EQ(out.str(), bytes(expected, sizeof expected));
    EXPECT_EQ(w.bytes(), sizeof expected);
}

TEST(PickleWriter, ListsAndDictsInBatchesOfAThousand) {
    // A list of 2001 items: MARK + 1000 items + APPENDS, twice, then the last item + APPEND.
    for (const std::size_t n : {1000u, 1001u, 2001u, 2002u}) {
        std::ostringstream out;
        PickleWriter w(out);
        w.begin_list(n);
        for (std::size_t i = 0; i < n; ++i) w.integer(1);
        w.end();
        w.finish();
        std::string expected = "\x80\x02]";
        for (std::size_t done = 0; done < n; done += 1000) {
            const std::size_t batch = std::min<std::size_t>(1000, n - done);
            if (batch > 1) expected += '(';
            for (std::size_t i = 0; i < batch; ++i) expected += "K\x01";
            expected += batch > 1 ? 'e' : 'a';
        }
        expected += '.';
        EXPECT_EQ(out.str(), expected) << n;
    }
    // A dict of 1001 items: MARK + 1000 pairs + SETITEMS, then one pair + SETITEM.
    std::ostringstream out;
    PickleWriter w(out);
    w.begin_dict(1001);
    for (int i = 0; i < 1001; ++i) {
        w.integer(i % 200);
        w.none();
    }
    w.end();
    w.finish();
    std::string expected = "\x80\x02}(";
    for (int i = 0; i < 1000; ++i) expected += std::string("K") + static_cast<char>(i % 200) + "N";
    expected += "u";
    expected += std::string("K") + static_cast<char>(1000 % 200) + "Ns.";
    EXPECT_EQ(out.str(), expected);
}

TEST(PickleWriter, RepairsUtf8) {
    const auto pickled = [](std::string_view s) {
        std::ostringstream out;
        PickleWriter w(out);
        w.string(s);
        w.finish();
        const std::string b = out.str();
        return b.substr(7, b.size() - 8); // after PROTO and the length, before STOP
    };
    const std::string fffd = "\xef\xbf\xbd";
    EXPECT_EQ(pickled("plain"), "plain");
    EXPECT_EQ(pickled("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");        // U+1F600 stays
    EXPECT_EQ(pickled("\xc0\xaf"), fffd + fffd);                       // overlong '/'
    EXPECT_EQ(pickled("\xed\xa0\x80"), fffd + fffd + fffd);            // a surrogate
    EXPECT_EQ(pickled("x\xe2\x86"), "x" + fffd + fffd);                // cut short
    EXPECT_EQ(pickled("\xf4\x90\x80\x80"), fffd + fffd + fffd + fffd); // past U+10FFFF
}

TEST(PickleWriter, RefusesMisuse) {
    std::ostringstream out;
    PickleWriter w(out);
    w.begin_list(2);
    w.integer(1);
    EXPECT_THROW(w.end(), std::logic_error); // one item of two
    w.integer(2);
    EXPECT_THROW(w.integer(3), std::logic_error); // a third
}
