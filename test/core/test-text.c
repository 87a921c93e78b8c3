/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tests of tn-text (private helpers of the core's parsers): spans, splitting and
 * the strict number parsers at their edges.
 */
#include "../../model/core/tn-text.h"
#include "tn-test.h"

#include <stdint.h>
#include <string.h>

static tn_span
S(const char* s)
{
    return tn_span_make(s, SIZE_MAX);
}

static void
test_span(tn_test_ctx* ctx)
{
    const char* text = "abcdef";
    tn_span a = tn_span_make(text, 3);
    TN_CHECK(ctx, a.s == text);
    TN_CHECK_EQ(ctx, a.n, 3);
    TN_CHECK_EQ(ctx, S(text).n, 6);
    TN_CHECK_EQ(ctx, S("").n, 0);

    TN_CHECK(ctx, tn_span_eq(a, "abc"));
    TN_CHECK(ctx, !tn_span_eq(a, "ab"));
    TN_CHECK(ctx, !tn_span_eq(a, "abcd"));
    TN_CHECK(ctx, !tn_span_eq(a, "abd"));
    TN_CHECK(ctx, tn_span_eq(tn_span_make(text, 0), ""));

    TN_CHECK_EQ(ctx, tn_span_shown_width(S(text), 4), 4);
    TN_CHECK_EQ(ctx, tn_span_shown_width(S(text), 6), 6);
    TN_CHECK_EQ(ctx, tn_span_shown_width(S(text), 80), 6);

    const char* spaces = " \t\n\v\f\r";
    for (size_t i = 0; i < strlen(spaces); i++)
    {
        TN_CHECK_MSG(ctx, tn_text_is_space(spaces[i]), "space %d", (int)spaces[i]);
    }
    TN_CHECK(ctx, !tn_text_is_space('x'));
    TN_CHECK(ctx, !tn_text_is_space('\0'));

    TN_CHECK(ctx, tn_span_eq(tn_span_trim(S(" \t a b \r\n")), "a b"));
    TN_CHECK_EQ(ctx, tn_span_trim(S(" \t ")).n, 0);
    TN_CHECK(ctx, tn_span_has_space(S("a b")));
    TN_CHECK(ctx, tn_span_has_space(S("ab\t")));
    TN_CHECK(ctx, !tn_span_has_space(S("ab")));
    TN_CHECK_EQ(ctx, tn_span_count(S("4x4x2"), 'x'), 2);
    TN_CHECK_EQ(ctx, tn_span_count(S("x"), 'x'), 1);
    TN_CHECK_EQ(ctx, tn_span_count(S(""), 'x'), 0);
}

static void
test_split(tn_test_ctx* ctx)
{
    /* "a,,b," is four pieces, the last one empty */
    tn_span rest = S("a,,b,");
    tn_span head;
    const char* want[] = {"a", "", "b", ""};
    int found[] = {1, 1, 1, 0};
    for (int i = 0; i < 4; i++)
    {
        TN_CHECK_EQ(ctx, tn_span_cut(&rest, ',', &head), found[i]);
        TN_CHECK_MSG(ctx, tn_span_eq(head, want[i]), "piece %d '%.*s'", i, (int)head.n, head.s);
    }
    TN_CHECK_EQ(ctx, rest.n, 0);

    /* key=value: only the first '=' cuts */
    tn_span value = S("k=v=w");
    tn_span key;
    TN_CHECK(ctx, tn_span_cut(&value, '=', &key));
    TN_CHECK(ctx, tn_span_eq(key, "k"));
    TN_CHECK(ctx, tn_span_eq(value, "v=w"));

    /* lines: blank lines count, no empty line after the final '\n' */
    rest = S("one\n\n two  three\t\nlast");
    tn_span line;
    const char* lines[] = {"one", "", " two  three\t", "last"};
    int n = 0;
    while (tn_span_next_line(&rest, &line))
    {
        TN_REQUIRE(ctx, n < 4);
        TN_CHECK_MSG(ctx, tn_span_eq(line, lines[n]), "line %d '%.*s'", n, (int)line.n, line.s);
        n++;
    }
    TN_CHECK_EQ(ctx, n, 4);
    rest = S("a\nb\n");
    n = 0;
    while (tn_span_next_line(&rest, &line))
    {
        n++;
    }
    TN_CHECK_EQ(ctx, n, 2);

    /* fields */
    rest = S("  1 \t22\r\v333 ");
    tn_span field;
    const char* fields[] = {"1", "22", "333"};
    n = 0;
    while (tn_span_next_field(&rest, &field))
    {
        TN_REQUIRE(ctx, n < 3);
        TN_CHECK_MSG(ctx,
                     tn_span_eq(field, fields[n]),
                     "field %d '%.*s'",
                     n,
                     (int)field.n,
                     field.s);
        n++;
    }
    TN_CHECK_EQ(ctx, n, 3);
    rest = S(" \t ");
    TN_CHECK(ctx, !tn_span_next_field(&rest, &field));
}

static void
test_unsigned(tn_test_ctx* ctx)
{
    uint32_t v32 = 7;
    TN_CHECK(ctx, tn_span_u32(S("0"), &v32) && v32 == 0);
    TN_CHECK(ctx, tn_span_u32(S("42"), &v32) && v32 == 42);
    TN_CHECK(ctx, tn_span_u32(S("4294967294"), &v32) && v32 == UINT32_MAX - 1);
    TN_CHECK(ctx, tn_span_u32(S("0000000009"), &v32) && v32 == 9);
    /* UINT32_MAX is the "none" value; 2^32 overflows */
    const char* bad32[] = {"",
                           "4294967295",
                           "4294967296",
                           "9999999999",
                           "00000000001",
                           "+1",
                           "-1",
                           " 1",
                           "1 ",
                           "1x",
                           "0x10",
                           "1.0",
                           "1e3"};
    for (size_t i = 0; i < sizeof(bad32) / sizeof(bad32[0]); i++)
    {
        v32 = 7;
        TN_CHECK_MSG(ctx, !tn_span_u32(S(bad32[i]), &v32) && v32 == 7, "u32 '%s'", bad32[i]);
    }
    /* the span ends the number, not the NUL */
    TN_CHECK(ctx, tn_span_u32(tn_span_make("123456", 3), &v32) && v32 == 123);

    uint64_t v64 = 7;
    TN_CHECK(ctx, tn_span_u64(S("4294967296"), &v64) && v64 == 4294967296ULL);
    TN_CHECK(ctx, tn_span_u64(S("18446744073709551615"), &v64) && v64 == UINT64_MAX);
    TN_CHECK(ctx, tn_span_u64(S("18446744073709551614"), &v64) && v64 == UINT64_MAX - 1);
    const char* bad64[] = {"",
                           "18446744073709551616",
                           "18446744073709551620",
                           "99999999999999999999",
                           "100000000000000000000",
                           "+5",
                           "-5",
                           "5 ",
                           "\t5",
                           "5;"};
    for (size_t i = 0; i < sizeof(bad64) / sizeof(bad64[0]); i++)
    {
        v64 = 7;
        TN_CHECK_MSG(ctx, !tn_span_u64(S(bad64[i]), &v64) && v64 == 7, "u64 '%s'", bad64[i]);
    }

    /* a general bound */
    TN_CHECK(ctx, tn_span_uint(S("65535"), 65535, &v64) && v64 == 65535);
    TN_CHECK(ctx, !tn_span_uint(S("65536"), 65535, &v64));
    TN_CHECK(ctx, !tn_span_uint(S("7"), 5, &v64));
    TN_CHECK(ctx, tn_span_uint(S("5"), 5, &v64) && v64 == 5);
    TN_CHECK(ctx, !tn_span_uint(S("10"), 9, &v64));
}

static void
test_double(tn_test_ctx* ctx)
{
    struct
    {
        const char* text;
        double value;
    } good[] = {{"0", 0.0},
                {"1", 1.0},
                {"+2.5", 2.5},
                {"-2.5", -2.5},
                {".5", 0.5},
                {"5.", 5.0},
                {"1e3", 1000.0},
                {"1E3", 1000.0},
                {"2.5e-3", 0.0025},
                {"-4e+2", -400.0},
                {"0.001", 0.001},
                {"1e308", 1e308},
                {"1e-400", 0.0}};

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
    {
        double v = -123.0;
        TN_CHECK_MSG(ctx,
                     tn_span_double(S(good[i].text), &v) && v == good[i].value,
                     "double '%s' -> %.17g",
                     good[i].text,
                     v);
    }
    const char* bad[] = {"",       "+",   "-",   ".",    "e3",  "1e",   "1e+",
                         "1.5.2",  " 1",  "1 ",  "1x",   "--1", "+-1",  "1e999",
                         "-1e999", "inf", "nan", "0x10", "1,5", "1e3.5"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        double v = -123.0;
        TN_CHECK_MSG(ctx, !tn_span_double(S(bad[i]), &v) && v == -123.0, "double '%s'", bad[i]);
    }
    double v = 0.0;
    TN_CHECK(ctx, tn_span_double(tn_span_make("0.25xyz", 4), &v) && v == 0.25);
}

static void
test_decimal(tn_test_ctx* ctx)
{
    uint64_t m = 0;
    unsigned f = 9;
    TN_CHECK_EQ(ctx, tn_span_decimal(S("12.50Gbps"), &m, &f), 5);
    TN_CHECK_EQ(ctx, m, 1250);
    TN_CHECK_EQ(ctx, f, 2);
    TN_CHECK_EQ(ctx, tn_span_decimal(S(".5us"), &m, &f), 2);
    TN_CHECK_EQ(ctx, m, 5);
    TN_CHECK_EQ(ctx, f, 1);
    TN_CHECK_EQ(ctx, tn_span_decimal(S("7"), &m, &f), 1);
    TN_CHECK_EQ(ctx, m, 7);
    TN_CHECK_EQ(ctx, f, 0);
    /* 18 significant digits pass, 19 do not; leading zeros are not significant */
    TN_CHECK_EQ(ctx, tn_span_decimal(S("999999999999999999"), &m, &f), 18);
    TN_CHECK_EQ(ctx, m, 999999999999999999ULL);
    TN_CHECK_EQ(ctx, tn_span_decimal(S("0000999999999999999999"), &m, &f), 22);
    TN_CHECK_EQ(ctx, tn_span_decimal(S("1000000000000000000"), &m, &f), 0);
    const char* bad[] = {"", ".", "ms", "+1", "-1", " 1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
        TN_CHECK_MSG(ctx, tn_span_decimal(S(bad[i]), &m, &f) == 0, "decimal '%s'", bad[i]);
    }
}

void
tn_suite_text(tn_test_suite* suite)
{
    tn_test_add(suite, "span", test_span);
    tn_test_add(suite, "split", test_split);
    tn_test_add(suite, "unsigned", test_unsigned);
    tn_test_add(suite, "double", test_double);
    tn_test_add(suite, "decimal", test_decimal);
}
