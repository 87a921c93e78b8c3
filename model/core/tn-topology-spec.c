/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * tn-topology-spec: the spec-string parser (grammar in tn-topology.h).
 */
#include "tn-text.h"
#include "tn-topology.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest piece of the spec quoted in messages. */
#define TN_SPEC_SHOWN 80

#define TN_SPEC_MAX_KEYS 8

/** Parsed spec: kind, positional body (may be empty), key=value items. */
typedef struct tn_spec
{
    const char* text; /* the spec as messages quote it: at most TN_SPEC_SHOWN bytes of it */
    char shown[TN_SPEC_SHOWN + 48];
    tn_span kind;
    tn_span body;
    uint32_t nkeys;
    tn_span key[TN_SPEC_MAX_KEYS];
    tn_span value[TN_SPEC_MAX_KEYS];
} tn_spec;

/* Find key; returns 1 and the value if present. */
static int
tn_spec_get(tn_spec* sp, const char* key, tn_span* value)
{
    for (uint32_t i = 0; i < sp->nkeys; i++)
    {
        if (tn_span_eq(sp->key[i], key))
        {
            *value = sp->value[i];
            return 1;
        }
    }
    return 0;
}

static tn_status
tn_spec_u32_key(tn_spec* sp, const char* key, int required, uint32_t* out, tn_error* err)
{
    tn_span v;
    if (!tn_spec_get(sp, key, &v))
    {
        if (required)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': missing key '%s'",
                                sp->text,
                                key);
        }
        return TN_OK;
    }
    if (!tn_span_u32(v, out))
    {
        char why[64];
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': %s '%.*s' %s",
                            sp->text,
                            key,
                            tn_span_shown_width(v, TN_SPEC_SHOWN),
                            v.s,
                            tn_span_u32_problem(v, why, sizeof(why)));
    }
    return TN_OK;
}

/* Common keys rate= and latency= into lp. */
static tn_status
tn_spec_link_params(tn_spec* sp, int allow_rate, tn_link_params* lp, tn_error* err)
{
    *lp = tn_link_params_default();
    tn_span v;
    char what[96];
    if (tn_spec_get(sp, "rate", &v))
    {
        if (!allow_rate)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': key 'rate' is not allowed for hier (give each "
                                "dim its rate: ring4@250Gbps)",
                                sp->text);
        }
        snprintf(what, sizeof(what), "topology spec: rate");
        tn_status s = tn_units_parse_rate(v.s, v.n, what, &lp->rate_bps, err);
        if (s)
        {
            return s;
        }
        if (lp->rate_bps == 0)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': rate '%.*s' must be > 0",
                                sp->text,
                                tn_span_shown_width(v, TN_SPEC_SHOWN),
                                v.s);
        }
    }
    if (tn_spec_get(sp, "latency", &v))
    {
        snprintf(what, sizeof(what), "topology spec: latency");
        tn_status s = tn_units_parse_time(v.s, v.n, what, &lp->latency_ns, err);
        if (s)
        {
            return s;
        }
    }
    return TN_OK;
}

/* "AxBxC" into a malloc'ed array. */
static tn_status
tn_spec_sizes(tn_spec* sp, tn_span body, uint32_t** sizes, uint32_t* n, tn_error* err)
{
    uint32_t count = 1 + (uint32_t)tn_span_count(body, 'x');
    uint32_t* out = malloc((size_t)count * sizeof(*out));
    if (!out)
    {
        return tn_error_set(err, TN_ENOMEM, "topology spec: out of memory");
    }
    tn_span rest = body;
    int more = 1;
    for (uint32_t k = 0; more; k++)
    {
        tn_span part;
        more = tn_span_cut(&rest, 'x', &part);
        if (!tn_span_u32(part, &out[k]))
        {
            free(out);
            char why[64];
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': size %u '%.*s' of '%.*s' %s",
                                sp->text,
                                k,
                                tn_span_shown_width(part, TN_SPEC_SHOWN),
                                part.s,
                                tn_span_shown_width(body, TN_SPEC_SHOWN),
                                body.s,
                                tn_span_u32_problem(part, why, sizeof(why)));
        }
    }
    *sizes = out;
    *n = count;
    return TN_OK;
}

/* hier body: dim{+dim}, dim := kind SIZE '@' RATE ['/' TIME]. */
static tn_status
tn_spec_hier(tn_spec* sp, const tn_link_params* lp, tn_topology** out, tn_error* err)
{
    tn_span body = sp->body;
    uint32_t count = 1 + (uint32_t)tn_span_count(body, '+');
    tn_dim_info* dims = calloc(count, sizeof(*dims));
    if (!dims)
    {
        return tn_error_set(err, TN_ENOMEM, "topology spec: out of memory");
    }
    tn_status s = TN_OK;
    tn_span rest = body;
    int more = 1;
    for (uint32_t k = 0; more && !s; k++)
    {
        tn_span dim;
        more = tn_span_cut(&rest, '+', &dim);
        tn_dim_info* di = &dims[k];
        const char* p = dim.s;
        const char* end = dim.s + dim.n;

        static const struct
        {
            const char* name;
            tn_dim_kind kind;
        } kinds[] = {{"ring", TN_DIM_RING}, {"fc", TN_DIM_FC}, {"switch", TN_DIM_SWITCH}};

        size_t kl = 0;
        for (size_t j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++)
        {
            size_t l = strlen(kinds[j].name);
            if ((size_t)(end - p) >= l && memcmp(p, kinds[j].name, l) == 0)
            {
                di->kind = kinds[j].kind;
                kl = l;
                break;
            }
        }
        if (kl == 0)
        {
            s = tn_error_set(
                err,
                TN_EINVAL,
                "topology spec '%s': hier dim %u '%.*s': kind must be ring, fc or switch "
                "(form KIND SIZE@RATE[/LATENCY], e.g. ring4@250Gbps/150ns)",
                sp->text,
                k,
                tn_span_shown_width(dim, TN_SPEC_SHOWN),
                dim.s);
            break;
        }
        tn_span rate = {p + kl, (size_t)(end - p - kl)};
        tn_span size;
        if (!tn_span_cut(&rate, '@', &size))
        {
            s = tn_error_set(err,
                             TN_EINVAL,
                             "topology spec '%s': hier dim %u '%.*s': missing '@RATE' (form KIND "
                             "SIZE@RATE[/LATENCY])",
                             sp->text,
                             k,
                             tn_span_shown_width(dim, TN_SPEC_SHOWN),
                             dim.s);
            break;
        }
        if (!tn_span_u32(size, &di->size))
        {
            char why[64];
            s = tn_error_set(err,
                             TN_EINVAL,
                             "topology spec '%s': hier dim %u '%.*s': size '%.*s' %s",
                             sp->text,
                             k,
                             tn_span_shown_width(dim, TN_SPEC_SHOWN),
                             dim.s,
                             tn_span_shown_width(size, TN_SPEC_SHOWN),
                             size.s,
                             tn_span_u32_problem(size, why, sizeof(why)));
            break;
        }
        /* the latency is after the last '/' that is followed by a digit or '.' */
        const char* rs = rate.s;
        const char* slash = NULL;
        for (const char* q = rs; q + 1 < end; q++)
        {
            if (*q == '/' && (isdigit((unsigned char)q[1]) || q[1] == '.'))
            {
                slash = q;
            }
        }
        const char* rend = slash ? slash : end;
        char what[64];
        snprintf(what, sizeof(what), "topology spec: hier dim %u rate", k);
        s = tn_units_parse_rate(rs, (size_t)(rend - rs), what, &di->bandwidth_bps, err);
        if (s)
        {
            break;
        }
        di->latency_ns = lp->latency_ns;
        if (slash)
        {
            snprintf(what, sizeof(what), "topology spec: hier dim %u latency", k);
            s = tn_units_parse_time(slash + 1,
                                    (size_t)(end - slash - 1),
                                    what,
                                    &di->latency_ns,
                                    err);
        }
    }
    if (!s)
    {
        s = tn_topology_hierarchical(count, dims, out, err);
    }
    free(dims);
    return s;
}

/* Names t after the spec (trimmed) and hands it to *out; destroys it on failure. */
static tn_status
tn_spec_named(tn_topology* t, tn_span trimmed, tn_topology** out, tn_error* err)
{
    char* name = malloc(trimmed.n + 1);
    if (!name)
    {
        tn_topology_destroy(t);
        return tn_error_set(err, TN_ENOMEM, "topology spec: out of memory");
    }
    memcpy(name, trimmed.s, trimmed.n);
    name[trimmed.n] = '\0';
    tn_status s = tn_topology_set_name(t, name, err);
    free(name);
    if (s)
    {
        tn_topology_destroy(t);
        return s;
    }
    *out = t;
    return TN_OK;
}

/* PRESET:servers=N[,gpus=G][,fabric=F][,oversub=R][,sharp=0|1] (tn-topology.h, system
 * presets). */
static tn_status
tn_spec_preset(tn_spec* sp,
               const tn_system_preset* preset,
               tn_span trimmed,
               tn_topology** out,
               tn_error* err)
{
    static const char* keys[] = {"servers", "gpus", "fabric", "oversub", "sharp"};
    for (uint32_t j = 0; j < sp->nkeys; j++)
    {
        int found = 0;
        for (size_t q = 0; q < sizeof(keys) / sizeof(keys[0]); q++)
        {
            found |= tn_span_eq(sp->key[j], keys[q]);
        }
        if (!found)
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': unknown key '%.*s' for %s (known: servers, "
                                "gpus, fabric, oversub, sharp)",
                                sp->text,
                                tn_span_shown_width(sp->key[j], TN_SPEC_SHOWN),
                                sp->key[j].s,
                                preset->name);
        }
    }
    if (sp->body.n)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': '%.*s' must be a key=value parameter (servers, "
                            "gpus, fabric, oversub, sharp)",
                            sp->text,
                            tn_span_shown_width(sp->body, TN_SPEC_SHOWN),
                            sp->body.s);
    }
    uint32_t servers = 1, gpus = 0;
    double oversub = 1.0;
    tn_fabric fabric = TN_FABRIC_RAIL_OPTIMIZED;
    tn_span v;
    tn_status s;
    if ((s = tn_spec_u32_key(sp, "servers", 0, &servers, err)) ||
        (s = tn_spec_u32_key(sp, "gpus", 0, &gpus, err)))
    {
        return s;
    }
    if (tn_spec_get(sp, "gpus", &v) && gpus == 0)
    {
        return tn_error_set(err, TN_EINVAL, "topology spec '%s': gpus '0' must be >= 2", sp->text);
    }
    if (tn_spec_get(sp, "oversub", &v) && !tn_span_double(v, &oversub))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': oversub '%.*s' is not a number",
                            sp->text,
                            tn_span_shown_width(v, TN_SPEC_SHOWN),
                            v.s);
    }
    if (tn_spec_get(sp, "fabric", &v))
    {
        if (tn_span_eq(v, "rail-only"))
            fabric = TN_FABRIC_RAIL_ONLY;
        else if (!tn_span_eq(v, "rail-optimized"))
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': fabric '%.*s' is not rail-optimized or "
                                "rail-only",
                                sp->text,
                                tn_span_shown_width(v, TN_SPEC_SHOWN),
                                v.s);
    }
    if (fabric == TN_FABRIC_RAIL_ONLY && tn_spec_get(sp, "oversub", &v))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': oversub needs fabric=rail-optimized (rail-only "
                            "has no spine)",
                            sp->text);
    }
    bool sharp = false;
    if (tn_spec_get(sp, "sharp", &v))
    {
        if (!tn_span_eq(v, "0") && !tn_span_eq(v, "1"))
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': sharp '%.*s' is not 0 or 1",
                                sp->text,
                                tn_span_shown_width(v, TN_SPEC_SHOWN),
                                v.s);
        sharp = tn_span_eq(v, "1");
    }
    if (sharp && servers < 2)
    {
        /* one server has no fabric switch to reduce in */
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': sharp=1 needs servers >= 2 (one server has no "
                            "fabric)",
                            sp->text);
    }
    tn_topology* t = NULL;
    if ((s = tn_topology_system(preset, servers, gpus, fabric, oversub, &t, err)))
    {
        char why[TN_ERROR_MESSAGE_SIZE];
        snprintf(why, sizeof(why), "%s", err ? err->message : "");
        return tn_error_set(err, s, "topology spec '%s': %s", sp->text, why);
    }
    tn_topology_set_sharp(t, sharp);
    return tn_spec_named(t, trimmed, out, err);
}

/* The spec text into *sp (quoted form, kind, positional body, key=value items) and the trimmed
 * spec into *trimmed; refuses empty, spaced, repeated or extra items. */
static tn_status
tn_spec_split(const char* spec, tn_spec* sp, tn_span* trimmed, tn_error* err)
{
    memset(sp, 0, sizeof(*sp));
    const size_t length = strlen(spec);
    if (length <= TN_SPEC_SHOWN)
        snprintf(sp->shown, sizeof(sp->shown), "%s", spec);
    else
        snprintf(sp->shown,
                 sizeof(sp->shown),
                 "%.*s...(%zu more bytes)",
                 TN_SPEC_SHOWN,
                 spec,
                 length - TN_SPEC_SHOWN);
    sp->text = sp->shown;
    *trimmed = tn_span_trim(tn_span_make(spec, SIZE_MAX));
    tn_span rest = *trimmed;
    if (!tn_span_cut(&rest, ':', &sp->kind))
    {
        return tn_error_set(
            err,
            TN_EINVAL,
            "topology spec '%s': expected KIND:PARAMETERS (ring:8, fc:8, switch:16, "
            "torus:4x4, mesh:4x4, leafspine:leaves=4,spines=2,hosts=8, fattree:k=4, "
            "bigraph:4x8, hier:ring4@250Gbps+switch8@100Gbps)",
            sp->text);
    }
    sp->body.s = rest.s;
    sp->body.n = 0;
    /* split the rest on ',' : items without '=' form the positional body (first only) */
    int first = 1;
    int more = 1;
    while (more)
    {
        tn_span item;
        more = tn_span_cut(&rest, ',', &item);
        if (item.n == 0)
        {
            return tn_error_set(err, TN_EINVAL, "topology spec '%s': empty parameter", sp->text);
        }
        if (tn_span_has_space(item))
        {
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': whitespace in '%.*s'",
                                sp->text,
                                tn_span_shown_width(item, TN_SPEC_SHOWN),
                                item.s);
        }
        tn_span key;
        tn_span value = item;
        if (!tn_span_cut(&value, '=', &key))
        {
            if (!first)
            {
                return tn_error_set(err,
                                    TN_EINVAL,
                                    "topology spec '%s': '%.*s' must be a key=value parameter",
                                    sp->text,
                                    tn_span_shown_width(item, TN_SPEC_SHOWN),
                                    item.s);
            }
            sp->body = item;
        }
        else
        {
            if (key.n == 0 || value.n == 0)
            {
                return tn_error_set(err,
                                    TN_EINVAL,
                                    "topology spec '%s': '%.*s' needs key=value",
                                    sp->text,
                                    tn_span_shown_width(item, TN_SPEC_SHOWN),
                                    item.s);
            }
            for (uint32_t i = 0; i < sp->nkeys; i++)
            {
                if (sp->key[i].n == key.n && memcmp(sp->key[i].s, key.s, key.n) == 0)
                {
                    return tn_error_set(err,
                                        TN_EINVAL,
                                        "topology spec '%s': key '%.*s' given twice",
                                        sp->text,
                                        tn_span_shown_width(key, TN_SPEC_SHOWN),
                                        key.s);
                }
            }
            if (sp->nkeys == TN_SPEC_MAX_KEYS)
            {
                return tn_error_set(err,
                                    TN_EINVAL,
                                    "topology spec '%s': too many parameters",
                                    sp->text);
            }
            sp->key[sp->nkeys] = key;
            sp->value[sp->nkeys] = value;
            sp->nkeys++;
        }
        first = 0;
    }
    return TN_OK;
}

/* Every key must be known for the kind (checked before building anything); *known is the
 * kind's list of keys for messages. Refuses an unknown kind. */
static tn_status
tn_spec_check_keys(tn_spec* sp, const char** known, tn_error* err)
{
    static const struct
    {
        const char* kind;
        const char* keys[7];
        const char* list;
    } known_keys[] = {
        {"ring", {"rate", "latency"}, "rate, latency"},
        {"fc", {"rate", "latency"}, "rate, latency"},
        {"switch", {"rate", "latency"}, "rate, latency"},
        {"torus", {"ports", "rate", "latency"}, "ports, rate, latency"},
        {"mesh", {"ports", "rate", "latency"}, "ports, rate, latency"},
        {"leafspine",
         {"leaves", "spines", "hosts", "oversub", "rate", "latency"},
         "leaves, spines, hosts, oversub, rate, latency"},
        {"fattree", {"k", "rate", "latency"}, "k, rate, latency"},
        {"bigraph", {"ports", "rate", "latency"}, "ports, rate, latency"},
        {"hier", {"latency", "rate"}, "latency"},
    };

    *known = NULL;
    for (size_t i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
    {
        if (!tn_span_eq(sp->kind, known_keys[i].kind))
        {
            continue;
        }
        *known = known_keys[i].list;
        for (uint32_t j = 0; j < sp->nkeys; j++)
        {
            int found = 0;
            for (size_t q = 0; q < 7 && known_keys[i].keys[q]; q++)
            {
                found |= tn_span_eq(sp->key[j], known_keys[i].keys[q]);
            }
            if (!found)
            {
                return tn_error_set(err,
                                    TN_EINVAL,
                                    "topology spec '%s': unknown key '%.*s' for %s (known: %s)",
                                    sp->text,
                                    tn_span_shown_width(sp->key[j], TN_SPEC_SHOWN),
                                    sp->key[j].s,
                                    known_keys[i].kind,
                                    known_keys[i].list);
            }
        }
    }
    if (!*known)
    {
        return tn_error_set(
            err,
            TN_EINVAL,
            "topology spec '%s': unknown kind '%.*s' (ring, fc, switch, torus, mesh, "
            "leafspine, fattree, bigraph, hier, dgx-a100, dgx-h100, gb200-nvl72)",
            sp->text,
            tn_span_shown_width(sp->kind, TN_SPEC_SHOWN),
            sp->kind.s);
    }
    return TN_OK;
}

/* ring:N, fc:N, switch:N */
static tn_status
tn_spec_counted(tn_spec* sp, const tn_link_params* lp, tn_topology** t, tn_error* err)
{
    uint32_t n;
    if (!tn_span_u32(sp->body, &n))
    {
        char why[64];
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': N '%.*s' %s",
                            sp->text,
                            tn_span_shown_width(sp->body, TN_SPEC_SHOWN),
                            sp->body.s,
                            tn_span_u32_problem(sp->body, why, sizeof(why)));
    }
    if (tn_span_eq(sp->kind, "ring"))
    {
        return tn_topology_ring(n, lp, t, err);
    }
    if (tn_span_eq(sp->kind, "fc"))
    {
        return tn_topology_fully_connected(n, lp, t, err);
    }
    return tn_topology_switch(n, lp, t, err);
}

/* torus:AxBx..[,ports=P], mesh:AxBx..[,ports=P] */
static tn_status
tn_spec_grid(tn_spec* sp, const tn_link_params* lp, tn_topology** t, tn_error* err)
{
    tn_status s;
    uint32_t ports = 1;
    if ((s = tn_spec_u32_key(sp, "ports", 0, &ports, err)))
    {
        return s;
    }
    uint32_t* sizes = NULL;
    uint32_t nd = 0;
    if ((s = tn_spec_sizes(sp, sp->body, &sizes, &nd, err)))
    {
        return s;
    }
    if (tn_span_eq(sp->kind, "torus"))
    {
        s = tn_topology_torus(nd, sizes, ports, lp, t, err);
    }
    else
    {
        s = tn_topology_mesh(nd, sizes, ports, lp, t, err);
    }
    free(sizes);
    return s;
}

/* leafspine:leaves=L,spines=S,hosts=H[,oversub=R]; known lists its keys for messages */
static tn_status
tn_spec_leafspine(tn_spec* sp,
                  const tn_link_params* lp,
                  const char* known,
                  tn_topology** t,
                  tn_error* err)
{
    if (sp->body.n)
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': '%.*s' must be a key=value parameter (%s)",
                            sp->text,
                            tn_span_shown_width(sp->body, TN_SPEC_SHOWN),
                            sp->body.s,
                            known);
    }
    tn_status s;
    uint32_t leaves = 0, spines = 0, hosts = 0;
    double oversub = 1.0;
    if ((s = tn_spec_u32_key(sp, "leaves", 1, &leaves, err)) ||
        (s = tn_spec_u32_key(sp, "spines", 1, &spines, err)) ||
        (s = tn_spec_u32_key(sp, "hosts", 1, &hosts, err)))
    {
        return s;
    }
    tn_span v;
    if (tn_spec_get(sp, "oversub", &v) && !tn_span_double(v, &oversub))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': oversub '%.*s' is not a number",
                            sp->text,
                            tn_span_shown_width(v, TN_SPEC_SHOWN),
                            v.s);
    }
    return tn_topology_leaf_spine(leaves, spines, hosts, oversub, lp, t, err);
}

/* fattree:K or fattree:k=K */
static tn_status
tn_spec_fattree(tn_spec* sp, const tn_link_params* lp, tn_topology** t, tn_error* err)
{
    tn_status s;
    uint32_t k = 0;
    if (sp->body.n)
    {
        if (!tn_span_u32(sp->body, &k))
        {
            char why[64];
            return tn_error_set(err,
                                TN_EINVAL,
                                "topology spec '%s': k '%.*s' %s",
                                sp->text,
                                tn_span_shown_width(sp->body, TN_SPEC_SHOWN),
                                sp->body.s,
                                tn_span_u32_problem(sp->body, why, sizeof(why)));
        }
        tn_span dummy;
        if (tn_spec_get(sp, "k", &dummy))
        {
            return tn_error_set(err, TN_EINVAL, "topology spec '%s': k given twice", sp->text);
        }
    }
    else if ((s = tn_spec_u32_key(sp, "k", 1, &k, err)))
    {
        return s;
    }
    return tn_topology_fat_tree(k, lp, t, err);
}

/* bigraph:NxM[,ports=P] */
static tn_status
tn_spec_bigraph(tn_spec* sp, const tn_link_params* lp, tn_topology** t, tn_error* err)
{
    tn_status s;
    uint32_t n = 0, m = 0;
    tn_span a;
    tn_span bm = sp->body;
    if (!tn_span_cut(&bm, 'x', &a) || !tn_span_u32(a, &n) || !tn_span_u32(bm, &m))
    {
        return tn_error_set(err,
                            TN_EINVAL,
                            "topology spec '%s': bigraph '%.*s' must be NxM (N switches x M NPUs "
                            "per switch)",
                            sp->text,
                            tn_span_shown_width(sp->body, TN_SPEC_SHOWN),
                            sp->body.s);
    }
    uint32_t ports = 0;
    if ((s = tn_spec_u32_key(sp, "ports", 0, &ports, err)))
    {
        return s;
    }
    tn_span pv;
    if (ports == 0 && tn_spec_get(sp, "ports", &pv))
    {
        return tn_error_set(err, TN_EINVAL, "topology spec '%s': ports '0' must be >= 1", sp->text);
    }
    return tn_topology_bigraph(n, m, ports, lp, t, err);
}

tn_status
tn_topology_from_spec(const char* spec, tn_topology** out, tn_error* err)
{
    if (!out)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_from_spec: out is NULL");
    }
    *out = NULL;
    if (!spec)
    {
        return tn_error_set(err, TN_EINVAL, "tn_topology_from_spec: spec is NULL");
    }
    tn_spec sp;
    tn_span trimmed;
    tn_status s = tn_spec_split(spec, &sp, &trimmed, err);
    if (s)
    {
        return s;
    }
    const tn_system_preset* preset = tn_system_preset_find(sp.kind.s, sp.kind.n);
    if (preset)
    {
        return tn_spec_preset(&sp, preset, trimmed, out, err);
    }
    const char* known = NULL;
    if ((s = tn_spec_check_keys(&sp, &known, err)))
    {
        return s;
    }
    tn_link_params lp;
    if ((s = tn_spec_link_params(&sp, !tn_span_eq(sp.kind, "hier"), &lp, err)))
    {
        return s;
    }
    tn_topology* t = NULL;
    if (tn_span_eq(sp.kind, "ring") || tn_span_eq(sp.kind, "fc") || tn_span_eq(sp.kind, "switch"))
        s = tn_spec_counted(&sp, &lp, &t, err);
    else if (tn_span_eq(sp.kind, "torus") || tn_span_eq(sp.kind, "mesh"))
        s = tn_spec_grid(&sp, &lp, &t, err);
    else if (tn_span_eq(sp.kind, "leafspine"))
        s = tn_spec_leafspine(&sp, &lp, known, &t, err);
    else if (tn_span_eq(sp.kind, "fattree"))
        s = tn_spec_fattree(&sp, &lp, &t, err);
    else if (tn_span_eq(sp.kind, "bigraph"))
        s = tn_spec_bigraph(&sp, &lp, &t, err);
    else if (tn_span_eq(sp.kind, "hier"))
        s = tn_spec_hier(&sp, &lp, &t, err);
    if (s)
    {
        return s;
    }
    return tn_spec_named(t, trimmed, out, err);
}
