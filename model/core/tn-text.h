/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-text: PRIVATE helpers of the core's text parsers (topology files, spec
 * strings, unit parsers, and later workload/flow/scenario files). Not installed.
 *
 * Contract:
 *  - tn_span is a NON-OWNING view [s, s + n) of text that lives elsewhere; it
 *    is not NUL-terminated (print it with "%.*s", tn_span_shown_width(x, max), x.s).
 *  - The number parsers are strict: they accept the WHOLE span or fail (return 0
 *    and leave *out untouched). No leading/trailing space, no sign for unsigned
 *    values, no trailing garbage, no silent overflow.
 *  - Nothing here keeps state or reads globals; only tn_text_read_file allocates
 *    (the caller frees the text).
 *  - No locale surprises: digits are '0'..'9', space is the C-locale set
 *    " \t\n\v\f\r", and the decimal point is '.' whatever LC_NUMERIC says.
 *  - Splitting helpers take a `rest` span, return the next piece and advance
 *    `rest` past it (and past its separator).
 */
#ifndef TN_TEXT_H
#define TN_TEXT_H

#include "tn-error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C"
{
#endif

    /** A view [s, s + n) of text owned by someone else. */
    typedef struct tn_span
    {
        const char* s;
        size_t n;
    } tn_span;

    /** The span [s, s + n); n == SIZE_MAX means "up to the terminating NUL". */
    tn_span tn_span_make(const char* s, size_t n);

    /** 1 if a holds exactly the characters of the NUL-terminated lit. */
    int tn_span_eq(tn_span a, const char* lit);

    /** Width to print a in messages with "%.*s": a.n, at most max. */
    int tn_span_shown_width(tn_span a, int max);

    /** 1 for the C-locale space characters " \t\n\v\f\r". */
    int tn_text_is_space(char c);

    /** a without its leading and trailing space. */
    tn_span tn_span_trim(tn_span a);

    /** 1 if a contains a space character. */
    int tn_span_has_space(tn_span a);

    /** Number of occurrences of c in a. */
    size_t tn_span_count(tn_span a, char c);

    /**
     * Cut the next piece off *rest at the first sep: *head is the text before it.
     * Returns 1 if a sep was found (*rest is then the text after it), 0 if not
     * (*head is all of *rest and *rest becomes empty). "a,,b" gives "a", "", "b".
     */
    int tn_span_cut(tn_span* rest, char sep, tn_span* head);

    /**
     * Next line of *rest (without its '\n'); 0 when *rest is empty. Text that ends
     * with '\n' has no empty line after it.
     */
    int tn_span_next_line(tn_span* rest, tn_span* line);

    /** Next space-separated field of *rest; 0 when only space is left. */
    int tn_span_next_field(tn_span* rest, tn_span* field);

    /**
     * Next non-blank line of *rest split into space-separated fields: stores at most
     * cap of them in fields and their total count in *n, and adds the lines it
     * consumed (blank ones included) to *line, so *line is the number of the line
     * returned. 0 at the end of the text. The line readers of the core's file
     * formats (topology files, workloads) are built on it.
     */
    int tn_span_next_fields(tn_span* rest, unsigned* line, tn_span* fields, size_t cap, size_t* n);

    /**
     * Read a whole file into a new NUL-terminated buffer (*text, *len bytes before
     * the NUL; the caller frees *text). Errors name the path: cannot open (with
     * strerror), read error, out of memory. On failure *text is NULL.
     */
    tn_status tn_text_read_file(const char* path, char** text, size_t* len, tn_error* err);

    /**
     * Unsigned decimal "DIGITS" with value <= max and at most as many digits as max
     * has (so no padding zeros beyond that).
     */
    int tn_span_uint(tn_span a, uint64_t max, uint64_t* out);

    /**
     * tn_span_uint with max UINT32_MAX - 1: UINT32_MAX is the core's "none" value
     * (TN_TOPO_NONE, TN_ROUTES_UNREACHABLE) and is never a count or id from text.
     */
    int tn_span_u32(tn_span a, uint32_t* out);

    /**
     * Why tn_span_uint(a, max) refuses a: "is too large (at most MAX)" when a is
     * digits whose value exceeds max (a number that is only too big is not
     * malformed), "is negative" for '-' followed by digits, else "is not a
     * non-negative integer". Writes into buf (size >= 64 is enough) and returns it.
     */
    const char* tn_span_uint_problem(tn_span a, uint64_t max, char* buf, size_t size);

    /** tn_span_uint_problem for tn_span_u32's limit. */
    const char* tn_span_u32_problem(tn_span a, char* buf, size_t size);

    /** tn_span_uint with max UINT64_MAX (byte sizes, offsets). */
    int tn_span_u64(tn_span a, uint64_t* out);

    /**
     * Real number: [+-] (DIGITS [. DIGITS] | . DIGITS) [(e|E) [+-] DIGITS], with the
     * value rounded as strtod does; fails on overflow (|value| too large for a
     * double; underflow gives the nearest double, possibly 0). No hex, inf or nan.
     */
    int tn_span_double(tn_span a, double* out);

    /**
     * Exact fixed-point PREFIX of a: "DIGITS[.DIGITS]" or ".DIGITS" as an integer
     * mantissa and its number of fraction digits ("12.50" -> 1250, 2). Returns the
     * number of characters used, 0 if a does not start with such a number or it
     * has more than 18 significant digits or 18 fraction digits.
     */
    size_t tn_span_decimal(tn_span a, uint64_t* mantissa, unsigned* frac);

#ifdef __cplusplus
}
#endif

#endif /* TN_TEXT_H */
