#include "fxmem/units.h"

#include <gtest/gtest.h>

#include <limits>

using fxmem::format_bytes;

TEST(Units, BytesBelowOneKiBAreExact) {
    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(1), "1 B");
    EXPECT_EQ(format_bytes(1023), "1023 B");
    EXPECT_EQ(format_bytes(-1023), "-1023 B");
}

TEST(Units, ThreeSignificantDigits) {
    EXPECT_EQ(format_bytes(1024), "1.00 KiB");
    EXPECT_EQ(format_bytes(1536), "1.50 KiB");
    EXPECT_EQ(format_bytes(10 * 1024), "10.0 KiB");
    EXPECT_EQ(format_bytes(12 * 1048576 + 524288), "12.5 MiB"); // 12.5 MiB exactly
    EXPECT_EQ(format_bytes(123 * 1048576), "123 MiB");
    EXPECT_EQ(format_bytes(-3LL * 1073741824), "-3.00 GiB");
    EXPECT_EQ(format_bytes(5LL << 40), "5.00 TiB");
}

TEST(Units, RoundingMovesToTheNextPrecisionOrUnit) {
    EXPECT_EQ(format_bytes(10235), "10.0 KiB"); // 9.995 KiB rounds to 10.0, not "10.00"
    EXPECT_EQ(format_bytes(102350), "100 KiB"); // 99.95 KiB
    EXPECT_EQ(format_bytes(1023 * 1024), "1023 KiB");
    EXPECT_EQ(format_bytes(1048575), "1.00 MiB"); // 1023.999 KiB would print as "1024 KiB"
    EXPECT_EQ(format_bytes(1048576), "1.00 MiB");
}

TEST(Units, ExtremesDoNotOverflow) {
    // 2^63-1 bytes = 8 EiB = 8388608 TiB: TiB is the largest unit.
    EXPECT_EQ(format_bytes(std::numeric_limits<std::int64_t>::max()), "8388608 TiB");
    EXPECT_EQ(format_bytes(std::numeric_limits<std::int64_t>::min()), "-8388608 TiB");
}

// Sizes as a person types them (fxmem-cli fit --memory, the app's device memory): computed by hand.
TEST(Units, ParseByteSize) {
    using fxmem::parse_byte_size;
    EXPECT_EQ(parse_byte_size("1000000"), 1000000);
    EXPECT_EQ(parse_byte_size("9223372036854775807"), INT64_MAX); // exact: no double in between
    EXPECT_EQ(parse_byte_size("24GB"), 24000000000);
    EXPECT_EQ(parse_byte_size("80GiB"), 85899345920);
    EXPECT_EQ(parse_byte_size(" 79.6 GiB "), 85469849190); // floor(79.6 * 2^30)
    EXPECT_EQ(parse_byte_size("512MiB"), 536870912);
    EXPECT_EQ(parse_byte_size("1.5KiB"), 1536);
    EXPECT_EQ(parse_byte_size("1e9"), 1000000000);
    EXPECT_EQ(parse_byte_size("2kB"), 2000);
    // A fraction of a byte was floored: --memory 0.9B meant 0 bytes.
    EXPECT_EQ(parse_byte_size("0.9B"), std::nullopt);
    EXPECT_EQ(parse_byte_size("1.5"), std::nullopt);
    EXPECT_EQ(parse_byte_size("0.0001kB"), std::nullopt);
    EXPECT_EQ(parse_byte_size("2.0B"), 2);
    EXPECT_EQ(parse_byte_size("0"), 0);
    EXPECT_EQ(parse_byte_size("0.1kB"), 100);
    EXPECT_EQ(parse_byte_size("0"), 0);
    for (const char* bad :
         {"", "GB", "-1", "1.5.2GB", "80 gb", "80GiBs", "1e", "9223372036854775808", "9e18TB", "nan", "inf", "0x10"})
        EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
}
