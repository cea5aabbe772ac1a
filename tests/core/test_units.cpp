#include "fxmem/units.h"

#include <gtest/gtest.h>

#include <limits>

using fxmem::format_bytes;
using fxmem::format_fractional_bytes;

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
    // 2^63-1 bytes is 8 EiB less one byte, which rounds to 8.00 EiB.
    EXPECT_EQ(format_bytes(std::numeric_limits<std::int64_t>::max()), "8.00 EiB");
    EXPECT_EQ(format_bytes(std::numeric_limits<std::int64_t>::min()), "-8.00 EiB");
}

// Decimal units (the app's preference, datasheets' sizes), by hand: 1500 B = 1.5 kB; 999,999 B =
// 999.999 kB, which rounds to 1.00 MB; 2e9 B = 2 GB.
TEST(Units, DecimalUnits) {
    using fxmem::ByteUnits;
    EXPECT_EQ(format_bytes(999, ByteUnits::Decimal), "999 B");
    EXPECT_EQ(format_bytes(1000, ByteUnits::Decimal), "1.00 kB");
    EXPECT_EQ(format_bytes(1500, ByteUnits::Decimal), "1.50 kB");
    EXPECT_EQ(format_bytes(999999, ByteUnits::Decimal), "1.00 MB");
    EXPECT_EQ(format_bytes(2000000000, ByteUnits::Decimal), "2.00 GB");
    EXPECT_EQ(format_bytes(-24000000000, ByteUnits::Decimal), "-24.0 GB");
}

// The app and the CLI share these digits: 10,236 B is 9.996 KiB, three significant digits "10.0"
// (the app printed "10.00 KiB"); 102,350 B is 99.95 KiB, "100 KiB" (the app printed "100.0 KiB").
// A fractional value (an axis tick) rounds the same way.
TEST(Units, OneFormatterForWholeAndFractionalBytes) {
    using fxmem::ByteUnits;
    EXPECT_EQ(format_bytes(10236), "10.0 KiB");
    EXPECT_EQ(format_bytes(102350), "100 KiB");
    EXPECT_EQ(format_fractional_bytes(10236.0, ByteUnits::Binary), "10.0 KiB");
    EXPECT_EQ(format_fractional_bytes(1536.0, ByteUnits::Binary), "1.50 KiB");
    EXPECT_EQ(format_fractional_bytes(511.6, ByteUnits::Binary), "512 B");
    EXPECT_EQ(format_fractional_bytes(-2048.0, ByteUnits::Binary), "-2.00 KiB");
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
