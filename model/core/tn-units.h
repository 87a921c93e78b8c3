/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-units: numbers with units as users write them (topology specs and files,
 * program options, scenario files).
 *
 * Grammar
 * -------
 *   RATE := number [unit]; units bps, Kbps, Mbps, Gbps, Tbps (bits; the 'bps'
 *           may be omitted: 250G), Bps, KBps, MBps, GBps, TBps, and the 'b/s' /
 *           'B/s' spellings (bytes when 'B'); prefixes are decimal (K = 1000);
 *           a bare number is bit/s.
 *   TIME := number unit; units s, ms, us, ns (fractions allowed: 0.001ms); the
 *           result is rounded to whole ns.
 *   SIZE := number [unit] (tn_units_parse_bytes below).
 *   number: digits with an optional fraction; no sign, exponent, hex, inf or nan.
 *
 * Contract: each parser reads [text, text+len) (len = SIZE_MAX: up to the NUL), must
 * consume all of it, and on failure returns TN_EINVAL with a message naming `what`
 * (the key or option) and the value; a value that does
 * not fit 64 bits is refused, never wrapped. No state.
 */
#ifndef TN_UNITS_H
#define TN_UNITS_H

#include "tn-error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /**
     * Parse a RATE (grammar above) in [text, text+len) (len = SIZE_MAX: up to NUL).
     * The whole range must be consumed. `what` names the key in the error message.
     */
    tn_status tn_units_parse_rate(const char* text,
                                  size_t len,
                                  const char* what,
                                  uint64_t* bps,
                                  tn_error* err);

    /** Parse a TIME (grammar above) to ns; same rules as tn_units_parse_rate. */
    tn_status tn_units_parse_time(const char* text,
                                  size_t len,
                                  const char* what,
                                  uint64_t* ns,
                                  tn_error* err);

/** Largest byte size a study can mean (2^62, 4.6 EB); sizes beyond are refused. */
#define TN_BYTES_MAX (UINT64_C(1) << 62)

    /**
     * Parse a SIZE := number [unit] to bytes; units B, KB, MB, GB, TB (powers of 1000),
     * KiB, MiB, GiB, TiB and K, M, G, T (powers of 1024); no unit = bytes. Fractions are
     * allowed when the result is a whole number of bytes (1.5KiB = 1536; 1.5B fails).
     * No sign, space, hex, exponent, inf or nan; the whole range must be consumed; the
     * value must be <= TN_BYTES_MAX. `what` names the option in the error message.
     */
    tn_status tn_units_parse_bytes(const char* text,
                                   size_t len,
                                   const char* what,
                                   uint64_t* bytes,
                                   tn_error* err);

#ifdef __cplusplus
}
#endif

#endif /* TN_UNITS_H */
