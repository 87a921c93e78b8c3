/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-text: spans of text and strict parsers (contract in tn-text.h).
 */
#include "tn-text.h"

#include "tn-array.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
tn_text_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

tn_span
tn_span_make(const char* s, size_t n)
{
    tn_span a = {s, n == SIZE_MAX ? strlen(s) : n};
    return a;
}

int
tn_span_eq(tn_span a, const char* lit)
{
    size_t n = strlen(lit);
    return a.n == n && memcmp(a.s, lit, n) == 0;
}

int
tn_span_shown_width(tn_span a, int max)
{
    return a.n > (size_t)max ? max : (int)a.n;
}

int
tn_text_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

tn_span
tn_span_trim(tn_span a)
{
    while (a.n > 0 && tn_text_is_space(a.s[0]))
    {
        a.s++;
        a.n--;
    }
    while (a.n > 0 && tn_text_is_space(a.s[a.n - 1]))
    {
        a.n--;
    }
    return a;
}

int
tn_span_has_space(tn_span a)
{
    for (size_t i = 0; i < a.n; i++)
    {
        if (tn_text_is_space(a.s[i]))
        {
            return 1;
        }
    }
    return 0;
}

size_t
tn_span_count(tn_span a, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < a.n; i++)
    {
        k += a.s[i] == c;
    }
    return k;
}

int
tn_span_cut(tn_span* rest, char sep, tn_span* head)
{
    const char* at = rest->n ? memchr(rest->s, sep, rest->n) : NULL;
    if (!at)
    {
        *head = *rest;
        rest->s += rest->n;
        rest->n = 0;
        return 0;
    }
    head->s = rest->s;
    head->n = (size_t)(at - rest->s);
    rest->n -= head->n + 1;
    rest->s = at + 1;
    return 1;
}

int
tn_span_next_line(tn_span* rest, tn_span* line)
{
    if (rest->n == 0)
    {
        return 0;
    }
    tn_span_cut(rest, '\n', line);
    return 1;
}

int
tn_span_next_fields(tn_span* rest, unsigned* line, tn_span* fields, size_t cap, size_t* n)
{
    tn_span text;
    while (tn_span_next_line(rest, &text))
    {
        (*line)++;
        size_t count = 0;
        tn_span field;
        while (tn_span_next_field(&text, &field))
        {
            if (count < cap)
            {
                fields[count] = field;
            }
            count++;
        }
        if (count > 0)
        {
            *n = count;
            return 1;
        }
    }
    return 0;
}

tn_status
tn_text_read_file(const char* path, char** text, size_t* len, tn_error* err)
{
    *text = NULL;
    *len = 0;
    FILE* f = fopen(path, "rb");
    if (!f)
    {
        return tn_error_set(err, TN_EIO, "%s: cannot open: %s", path, strerror(errno));
    }
    char* buf = NULL;
    size_t cap = 0;
    size_t used = 0;
    tn_status s = TN_OK;
    for (;;)
    {
        char* grown = tn_array_grow(buf, &cap, used + 4096, 1, 1 << 16);
        if (!grown)
        {
            s = tn_error_set(err, TN_ENOMEM, "%s: out of memory", path);
            break;
        }
        buf = grown;
        size_t got = fread(buf + used, 1, cap - used - 1, f); /* room for the NUL */
        used += got;
        if (got == 0)
        {
            break;
        }
    }
    if (!s && ferror(f))
    {
        s = tn_error_set(err, TN_EIO, "%s: read error", path);
    }
    fclose(f);
    if (s)
    {
        free(buf);
        return s;
    }
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return TN_OK;
}

int
tn_span_next_field(tn_span* rest, tn_span* field)
{
    const char* p = rest->s;
    const char* end = rest->s + rest->n;
    while (p < end && tn_text_is_space(*p))
    {
        p++;
    }
    const char* fs = p;
    while (p < end && !tn_text_is_space(*p))
    {
        p++;
    }
    rest->s = p;
    rest->n = (size_t)(end - p);
    field->s = fs;
    field->n = (size_t)(p - fs);
    return field->n > 0;
}

int
tn_span_uint(tn_span a, uint64_t max, uint64_t* out)
{
    size_t max_digits = 1;
    for (uint64_t m = max; m >= 10; m /= 10)
    {
        max_digits++;
    }
    if (a.n == 0 || a.n > max_digits)
    {
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < a.n; i++)
    {
        if (!tn_text_is_digit(a.s[i]))
        {
            return 0;
        }
        uint64_t d = (uint64_t)(a.s[i] - '0');
        if (d > max || v > (max - d) / 10)
        {
            return 0; /* v * 10 + d > max */
        }
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

int
tn_span_u32(tn_span a, uint32_t* out)
{
    uint64_t v;
    if (!tn_span_uint(a, UINT32_MAX - 1, &v))
    {
        return 0;
    }
    *out = (uint32_t)v;
    return 1;
}

static int
tn_span_all_digits(tn_span a)
{
    for (size_t i = 0; i < a.n; i++)
    {
        if (!tn_text_is_digit(a.s[i]))
        {
            return 0;
        }
    }
    return a.n > 0;
}

const char*
tn_span_uint_problem(tn_span a, uint64_t max, char* buf, size_t size)
{
    if (tn_span_all_digits(a))
    {
        snprintf(buf, size, "is too large (at most %llu)", (unsigned long long)max);
    }
    else if (a.n > 1 && a.s[0] == '-' && tn_span_all_digits(tn_span_make(a.s + 1, a.n - 1)))
    {
        snprintf(buf, size, "is negative: expected a non-negative integer");
    }
    else
    {
        snprintf(buf, size, "is not a non-negative integer");
    }
    return buf;
}

const char*
tn_span_u32_problem(tn_span a, char* buf, size_t size)
{
    return tn_span_uint_problem(a, UINT32_MAX - 1, buf, size);
}

int
tn_span_u64(tn_span a, uint64_t* out)
{
    return tn_span_uint(a, UINT64_MAX, out);
}

/* Length of the run of digits at the start of [p, end). */
static size_t
tn_text_digits(const char* p, const char* end)
{
    size_t k = 0;
    while (p + k < end && tn_text_is_digit(p[k]))
    {
        k++;
    }
    return k;
}

int
tn_span_double(tn_span a, double* out)
{
    /* check the grammar here, so that strtod's extras (space, hex, inf, nan) never pass */
    const char* p = a.s;
    const char* end = a.s + a.n;
    if (p < end && (*p == '+' || *p == '-'))
    {
        p++;
    }
    size_t int_digits = tn_text_digits(p, end);
    p += int_digits;
    const char* point = NULL;
    size_t frac_digits = 0;
    if (p < end && *p == '.')
    {
        point = p++;
        frac_digits = tn_text_digits(p, end);
        p += frac_digits;
    }
    if (int_digits + frac_digits == 0)
    {
        return 0;
    }
    if (p < end && (*p == 'e' || *p == 'E'))
    {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
        {
            p++;
        }
        size_t exp_digits = tn_text_digits(p, end);
        if (exp_digits == 0)
        {
            return 0;
        }
        p += exp_digits;
    }
    if (p != end)
    {
        return 0;
    }

    /* strtod wants a NUL-terminated string with the locale's decimal point */
    const char* dp = localeconv()->decimal_point;
    size_t dpn = dp && *dp ? strlen(dp) : 1;
    char buf[128];
    if (a.n + dpn >= sizeof(buf))
    {
        return 0;
    }
    size_t k = 0;
    for (const char* q = a.s; q < end; q++)
    {
        if (q == point && dp && *dp)
        {
            memcpy(buf + k, dp, dpn);
            k += dpn;
        }
        else
        {
            buf[k++] = *q;
        }
    }
    buf[k] = '\0';
    char* stop;
    errno = 0;
    double v = strtod(buf, &stop);
    if (*stop != '\0' || (errno == ERANGE && isinf(v)))
    {
        return 0;
    }
    *out = v;
    return 1;
}

size_t
tn_span_decimal(tn_span a, uint64_t* mantissa, unsigned* frac)
{
    const char* s = a.s;
    const char* end = a.s + a.n;
    uint64_t m = 0;
    unsigned f = 0;
    unsigned digits = 0;
    const char* p = s;
    while (p < end && tn_text_is_digit(*p))
    {
        if (digits >= 18)
        {
            return 0;
        }
        m = m * 10 + (uint64_t)(*p - '0');
        if (m)
        {
            digits++;
        }
        p++;
    }
    int int_digits = p > s;
    if (p < end && *p == '.')
    {
        p++;
        const char* fs = p;
        while (p < end && tn_text_is_digit(*p))
        {
            if (digits >= 18 || f >= 18)
            {
                return 0;
            }
            m = m * 10 + (uint64_t)(*p - '0');
            if (m)
            {
                digits++;
            }
            f++;
            p++;
        }
        if (p == fs && !int_digits)
        {
            return 0;
        }
    }
    else if (!int_digits)
    {
        return 0;
    }
    *mantissa = m;
    *frac = f;
    return (size_t)(p - s);
}
