/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-units: rates, times and byte sizes with units (contract in tn-units.h).
 */
#include "tn-units.h"

#include "tn-text.h"

#include <stdint.h>
#include <string.h>

/* Longest input, and unit, quoted in messages of the unit parsers. */
#define TN_UNIT_SHOWN 64
#define TN_UNIT_SHOWN_UNIT 32

/*
 * value = mantissa * mult * 10^exp10, rounded to nearest; 0 on overflow.
 * mantissa < 10^18 and mult <= 8, so the product fits in 64 bits, and
 * exp10 >= -18 keeps the divisor below 2^64.
 */
static int
tn_scale(uint64_t mantissa, int exp10, uint64_t mult, uint64_t* out)
{
    uint64_t v = mantissa * mult;
    for (; exp10 > 0; exp10--)
    {
        if (v > UINT64_MAX / 10)
        {
            return 0;
        }
        v *= 10;
    }
    if (exp10 < 0)
    {
        uint64_t div = 1;
        for (; exp10 < 0; exp10++)
        {
            div *= 10;
        }
        v = v / div + (v % div >= div - div / 2 ? 1 : 0);
    }
    *out = v;
    return 1;
}

/** A number with its unit, as the unit parsers read it. */
typedef struct tn_quantity
{
    tn_span all;       /* the whole text */
    uint64_t mantissa; /* the number is mantissa / 10^frac */
    unsigned frac;
    tn_span unit; /* what follows the number */
} tn_quantity;

/*
 * Common start of the unit parsers: argument checks, then the number at the start
 * of the text (see tn_span_decimal). `kind` names the unit in messages ("rate").
 */
static tn_status
tn_parse_quantity(const char* text,
                  size_t len,
                  const void* out,
                  const char* what,
                  const char* kind,
                  tn_quantity* q,
                  tn_error* err)
{
    if (!text || !out)
    {
        return tn_error_set(err, TN_EINVAL, "%s: NULL argument", what);
    }
    q->all = tn_span_make(text, len);
    size_t used = tn_span_decimal(q->all, &q->mantissa, &q->frac);
    if (used == 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s '%.*s' is not a number with a %s unit",
                            what,
                            tn_span_shown_width(q->all, TN_UNIT_SHOWN),
                            q->all.s,
                            kind);
    }
    q->unit.s = q->all.s + used;
    q->unit.n = q->all.n - used;
    return TN_OK;
}

/* *out = mantissa * mult * 10^exp10, or the "too large" error. */
static tn_status
tn_parse_scale(const tn_quantity* q,
               const char* what,
               int exp10,
               uint64_t mult,
               uint64_t* out,
               tn_error* err)
{
    uint64_t v;
    if (!tn_scale(q->mantissa, exp10 - (int)q->frac, mult, &v))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s '%.*s' is too large",
                            what,
                            tn_span_shown_width(q->all, TN_UNIT_SHOWN),
                            q->all.s);
    }
    *out = v;
    return TN_OK;
}

tn_status
tn_units_parse_rate(const char* text, size_t len, const char* what, uint64_t* bps, tn_error* err)
{
    what = what ? what : "rate";
    tn_quantity q;
    tn_status s = tn_parse_quantity(text, len, bps, what, "rate", &q, err);
    if (s)
    {
        return s;
    }
    tn_span rest = q.unit;
    int exp10 = 0;
    uint64_t mult = 1;
    if (rest.n > 0)
    {
        switch (rest.s[0])
        {
        case 'k':
        case 'K':
            exp10 = 3;
            break;
        case 'M':
            exp10 = 6;
            break;
        case 'G':
            exp10 = 9;
            break;
        case 'T':
            exp10 = 12;
            break;
        default:
            break;
        }
        if (exp10)
        {
            rest.s++;
            rest.n--;
        }
    }
    if (rest.n == 0)
    {
        /* bare number or bare prefix: bits */
    }
    else if (tn_span_eq(rest, "bps") || tn_span_eq(rest, "b/s"))
    {
        mult = 1;
    }
    else if (tn_span_eq(rest, "Bps") || tn_span_eq(rest, "B/s"))
    {
        mult = 8;
    }
    else
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s '%.*s': unknown rate unit '%.*s' (use bps, Kbps, Mbps, Gbps, Tbps, "
                            "or Bps, KBps, MBps, GBps, TBps for bytes)",
                            what,
                            tn_span_shown_width(q.all, TN_UNIT_SHOWN),
                            q.all.s,
                            tn_span_shown_width(q.unit, TN_UNIT_SHOWN_UNIT),
                            q.unit.s);
    }
    return tn_parse_scale(&q, what, exp10, mult, bps, err);
}

tn_status
tn_units_parse_time(const char* text, size_t len, const char* what, uint64_t* ns, tn_error* err)
{
    what = what ? what : "latency";
    tn_quantity q;
    tn_status s = tn_parse_quantity(text, len, ns, what, "time", &q, err);
    if (s)
    {
        return s;
    }
    int exp10;
    if (tn_span_eq(q.unit, "s"))
    {
        exp10 = 9;
    }
    else if (tn_span_eq(q.unit, "ms"))
    {
        exp10 = 6;
    }
    else if (tn_span_eq(q.unit, "us"))
    {
        exp10 = 3;
    }
    else if (tn_span_eq(q.unit, "ns"))
    {
        exp10 = 0;
    }
    else
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s '%.*s': %s time unit '%.*s' (use s, ms, us or ns)",
                            what,
                            tn_span_shown_width(q.all, TN_UNIT_SHOWN),
                            q.all.s,
                            q.unit.n ? "unknown" : "missing",
                            tn_span_shown_width(q.unit, TN_UNIT_SHOWN_UNIT),
                            q.unit.s);
    }
    return tn_parse_scale(&q, what, exp10, 1, ns, err);
}

tn_status
tn_units_parse_bytes(const char* text, size_t len, const char* what, uint64_t* bytes, tn_error* err)
{
    what = what ? what : "size";
    tn_quantity q;
    tn_status s = tn_parse_quantity(text, len, bytes, what, "size", &q, err);
    if (s)
    {
        return s;
    }

    static const struct
    {
        const char* unit;
        uint64_t mult;
    } units[] = {{"", 1},
                 {"B", 1},
                 {"KB", UINT64_C(1000)},
                 {"MB", UINT64_C(1000000)},
                 {"GB", UINT64_C(1000000000)},
                 {"TB", UINT64_C(1000000000000)},
                 {"KiB", UINT64_C(1) << 10},
                 {"MiB", UINT64_C(1) << 20},
                 {"GiB", UINT64_C(1) << 30},
                 {"TiB", UINT64_C(1) << 40},
                 {"K", UINT64_C(1) << 10},
                 {"M", UINT64_C(1) << 20},
                 {"G", UINT64_C(1) << 30},
                 {"T", UINT64_C(1) << 40}};

    uint64_t mult = 0;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
    {
        if (tn_span_eq(q.unit, units[i].unit))
        {
            mult = units[i].mult;
            break;
        }
    }
    if (mult == 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s '%.*s': unknown size unit '%.*s' (use B, KB, MB, GB, TB or KiB, "
                            "MiB, GiB, TiB)",
                            what,
                            tn_span_shown_width(q.all, TN_UNIT_SHOWN),
                            q.all.s,
                            tn_span_shown_width(q.unit, TN_UNIT_SHOWN_UNIT),
                            q.unit.s);
    }
    /* exactly mantissa * mult / 10^frac: whole part, then the fraction's share, which is
     * below mult and whole only if 10^frac / gcd(r, 10^frac) divides mult */
    uint64_t den = 1;
    for (unsigned i = 0; i < q.frac; i++)
    {
        den *= 10;
    }
    uint64_t whole = q.mantissa / den;
    uint64_t r = q.mantissa % den;
    uint64_t g = den;
    for (uint64_t a = r; a != 0;)
    {
        uint64_t t = g % a;
        g = a;
        a = t;
    }
    uint64_t reduced = den / g;
    if (r != 0 && mult % reduced != 0)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s '%.*s' is not a whole number of bytes",
                            what,
                            tn_span_shown_width(q.all, TN_UNIT_SHOWN),
                            q.all.s);
    }
    uint64_t part = r == 0 ? 0 : (r / g) * (mult / reduced);
    if (whole > (TN_BYTES_MAX - part) / mult)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "%s '%.*s' is beyond 2^62 bytes (4.6 EB), more than any study means",
                            what,
                            tn_span_shown_width(q.all, TN_UNIT_SHOWN),
                            q.all.s);
    }
    *bytes = whole * mult + part;
    return TN_OK;
}
