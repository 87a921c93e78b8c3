/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The flat JSON objects of ASTRA-sim 2's system, comm-group and remote-memory files
 * (tn-astra.h holds the contract). A full JSON reader would accept nesting no key of these
 * files has; refusing it here gives the user the line of the mistake.
 */
#include "tn-astra.h"
#include "tn-text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader
{
    const char* s;
    size_t n;
    size_t at;
    unsigned line;
    const char* path;
    tn_error* err;
} reader;

static void
skip_space(reader* r)
{
    while (r->at < r->n && tn_text_is_space(r->s[r->at]))
    {
        if (r->s[r->at] == '\n')
        {
            r->line++;
        }
        r->at++;
    }
}

static tn_status
fail(reader* r, const char* what)
{
    if (r->at >= r->n)
    {
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s:%u: %s, got the end of the file",
                            r->path,
                            r->line,
                            what);
    }
    const unsigned char c = (unsigned char)r->s[r->at];
    if (c < 0x20 || c >= 0x7f)
    {
        /* a control byte would break the one error line; bytes past ASCII may be half a
           character */
        return tn_error_set(r->err,
                            TN_EPARSE,
                            "%s:%u: %s, got byte 0x%02x",
                            r->path,
                            r->line,
                            what,
                            c);
    }
    return tn_error_set(r->err, TN_EPARSE, "%s:%u: %s, got '%c'", r->path, r->line, what, c);
}

/* A string without escapes: its text between the quotes. */
static tn_astra_text
text_of(tn_span s)
{
    tn_astra_text t = {s.s, s.n};
    return t;
}

static tn_span
span_of(tn_astra_text t)
{
    return tn_span_make(t.s, t.n);
}

int
tn_astra_text_eq(tn_astra_text t, const char* lit)
{
    return tn_span_eq(span_of(t), lit);
}

static tn_status
read_string(reader* r, tn_astra_text* out)
{
    if (r->at >= r->n || r->s[r->at] != '"')
    {
        return fail(r, "expected a string");
    }
    const size_t start = ++r->at;
    while (r->at < r->n && r->s[r->at] != '"')
    {
        const unsigned char c = (unsigned char)r->s[r->at];
        if (c == '\\' || c < 0x20 || c == 0x7f)
        {
            return fail(r, "a string of ASTRA-sim's files has no escape and no control byte");
        }
        r->at++;
    }
    if (r->at >= r->n)
    {
        return fail(r, "an unterminated string");
    }
    *out = text_of(tn_span_make(r->s + start, r->at - start));
    r->at++;
    return TN_OK;
}

static tn_status
read_value(reader* r, tn_astra_json_value* v)
{
    if (r->at < r->n && r->s[r->at] == '"')
    {
        v->kind = TN_ASTRA_JSON_STRING;
        return read_string(r, &v->text);
    }
    const size_t start = r->at;
    while (r->at < r->n && (r->s[r->at] == '-' || r->s[r->at] == '+' || r->s[r->at] == '.' ||
                            (r->s[r->at] >= '0' && r->s[r->at] <= '9') ||
                            (r->s[r->at] >= 'a' && r->s[r->at] <= 'z') ||
                            (r->s[r->at] >= 'A' && r->s[r->at] <= 'Z')))
    {
        r->at++;
    }
    const tn_span text = tn_span_make(r->s + start, r->at - start);
    v->text = text_of(text);
    double d;
    if (tn_span_eq(text, "true") || tn_span_eq(text, "false"))
    {
        v->kind = TN_ASTRA_JSON_BOOL;
        return TN_OK;
    }
    if (text.n > 0 && tn_span_double(text, &d))
    {
        v->kind = TN_ASTRA_JSON_NUMBER;
        return TN_OK;
    }
    r->at = start;
    return fail(r,
                r->at < r->n && (r->s[r->at] == '{')
                    ? "a value is a string, number, true, false or a list of those (no "
                      "nested object)"
                    : "expected a string, number, true, false or a list");
}

static tn_status
read_entry(reader* r, tn_astra_json_entry* e)
{
    tn_status s = read_string(r, &e->key);
    if (s != TN_OK)
    {
        return s;
    }
    e->line = r->line;
    skip_space(r);
    if (r->at >= r->n || r->s[r->at] != ':')
    {
        return fail(r, "expected ':' after the key");
    }
    r->at++;
    skip_space(r);
    if (r->at < r->n && r->s[r->at] == '[')
    {
        e->is_list = 1;
        r->at++;
        skip_space(r);
        uint32_t cap = 0;
        while (r->at < r->n && r->s[r->at] != ']')
        {
            if (e->count == cap)
            {
                cap = cap ? 2 * cap : 4;
                tn_astra_json_value* grown = realloc(e->values, cap * sizeof(*grown));
                if (!grown)
                {
                    return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->path);
                }
                e->values = grown;
            }
            s = read_value(r, &e->values[e->count]);
            if (s != TN_OK)
            {
                return s;
            }
            e->count++;
            skip_space(r);
            if (r->at < r->n && r->s[r->at] == ',')
            {
                r->at++;
                skip_space(r);
            }
            else if (r->at >= r->n || r->s[r->at] != ']')
            {
                return fail(r, "expected ',' or ']' in a list");
            }
        }
        if (r->at >= r->n)
        {
            return fail(r, "an unterminated list");
        }
        r->at++;
        return TN_OK;
    }
    e->values = malloc(sizeof(*e->values));
    if (!e->values)
    {
        return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->path);
    }
    e->count = 1;
    return read_value(r, &e->values[0]);
}

static tn_status
read_object(reader* r, tn_astra_json* out)
{
    skip_space(r);
    if (r->at >= r->n || r->s[r->at] != '{')
    {
        return fail(r, "expected '{' (the file is one JSON object)");
    }
    r->at++;
    skip_space(r);
    uint32_t cap = 0;
    while (r->at < r->n && r->s[r->at] != '}')
    {
        if (out->count == cap)
        {
            cap = cap ? 2 * cap : 16;
            tn_astra_json_entry* grown = realloc(out->entries, cap * sizeof(*grown));
            if (!grown)
            {
                return tn_error_set(r->err, TN_ENOMEM, "%s: out of memory", r->path);
            }
            out->entries = grown;
        }
        tn_astra_json_entry* e = &out->entries[out->count++];
        memset(e, 0, sizeof(*e));
        tn_status s = read_entry(r, e);
        if (s != TN_OK)
        {
            return s;
        }
        for (uint32_t i = 0; i + 1 < out->count; i++)
        {
            const tn_astra_text k = out->entries[i].key;
            if (k.n == e->key.n && memcmp(k.s, e->key.s, k.n) == 0)
            {
                return tn_error_set(r->err,
                                    TN_EPARSE,
                                    "%s:%u: %.*s: given twice (first on line %u)",
                                    r->path,
                                    e->line,
                                    tn_span_shown_width(span_of(e->key), 60),
                                    e->key.s,
                                    out->entries[i].line);
            }
        }
        skip_space(r);
        if (r->at < r->n && r->s[r->at] == ',')
        {
            r->at++;
            skip_space(r);
        }
        else if (r->at >= r->n || r->s[r->at] != '}')
        {
            return fail(r, "expected ',' or '}' after a value");
        }
    }
    if (r->at >= r->n)
    {
        return fail(r, "an unterminated object");
    }
    r->at++;
    skip_space(r);
    if (r->at < r->n)
    {
        return fail(r, "nothing may follow the object");
    }
    return TN_OK;
}

tn_status
tn_astra_json_parse(const char* text,
                    size_t len,
                    const char* path,
                    tn_astra_json* out,
                    tn_error* err)
{
    reader r = {text, len, 0, 1, path, err};
    tn_astra_json json = {0, NULL};
    tn_status s = read_object(&r, &json);
    if (s != TN_OK)
    {
        tn_astra_json_destroy(&json);
        return s;
    }
    *out = json;
    return TN_OK;
}

void
tn_astra_json_destroy(tn_astra_json* json)
{
    if (!json)
    {
        return;
    }
    for (uint32_t i = 0; i < json->count; i++)
    {
        free(json->entries[i].values);
    }
    free(json->entries);
    json->entries = NULL;
    json->count = 0;
}
