/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The algorithm tuner (contract in tn-tune.h).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "tn-tune.h"

#include "tn-memory.h"
#include "tn-program-window.h"
#include "tn-program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* first_two: the reason of a candidate not estimated yet (never handed out) */
static const char DEFERRED[] = "deferred";

struct tn_tune_ranking
{
    tn_tune_candidate* candidates;
    uint32_t count;
    uint32_t ranked;
    /* keep_choice: the best candidate ranked on its schedule so far (its registry name and
     * estimate; NULL when none), with its schedule and cost result */
    const char* kept;
    double kept_ns;
    tn_schedule* kept_schedule;
    tn_cost_result* kept_cost;
};

void
tn_tune_options_init(tn_tune_options* options)
{
    memset(options, 0, sizeof(*options));
    options->path = TN_TUNE_AUTO_PATH;
    options->schedule_transfers = TN_TUNE_SCHEDULE_TRANSFERS;
    options->estimate_transfers = TN_TUNE_ESTIMATE_TRANSFERS;
}

bool
tn_tune_is_auto(const char* algorithm)
{
    return algorithm && strcmp(algorithm, TN_TUNE_AUTO) == 0;
}

tn_status
tn_tune_algorithm_check(const char* algorithm, tn_error* err)
{
    if (tn_tune_is_auto(algorithm) || tn_algorithm_find(algorithm))
    {
        return TN_OK;
    }
    size_t count;
    const tn_algorithm* table = tn_algorithms(&count);
    char names[320];
    size_t used = 0;
    names[0] = 0;
    for (size_t i = 0; i < count && used < sizeof(names); i++)
    {
        used += (size_t)snprintf(names + used, sizeof(names) - used, "%s, ", table[i].name);
    }
    return tn_error_set(err,
                        TN_EINVAL,
                        "unknown algorithm '%.80s' (known: %s%s)",
                        algorithm ? algorithm : "(null)",
                        names,
                        TN_TUNE_AUTO);
}

/* Whether algorithm a implements the request's collective (the candidates). */
static bool
serves(const tn_algorithm* a, const tn_plan_request* request)
{
    return (unsigned)request->collective < (unsigned)TN_COLL_COUNT &&
           (a->collectives & TN_COLL_BIT(request->collective)) && !a->family;
}

tn_status
tn_tune_plan_check(const tn_topology* topo, const tn_plan_request* request, tn_error* err)
{
    if (!request || !tn_tune_is_auto(request->algorithm))
    {
        tn_status st = request ? tn_tune_algorithm_check(request->algorithm, err) : TN_OK;
        return st ? st : tn_plan_check(topo, request, err);
    }
    size_t count;
    const tn_algorithm* table = tn_algorithms(&count);
    tn_error first;
    first.message[0] = 0;
    for (size_t i = 0; i < count; i++)
    {
        if (!serves(&table[i], request))
        {
            continue;
        }
        tn_plan_request r = *request;
        r.algorithm = table[i].name;
        tn_error e;
        if (tn_plan_check(topo, &r, &e) == TN_OK)
        {
            return TN_OK;
        }
        if (!first.message[0])
        {
            first = e;
        }
    }
    if (first.message[0])
    {
        /* the first candidate's reason covers what every candidate shares (ranks, root) */
        return tn_error_set(err,
                            TN_EUNSUPPORTED,
                            "auto: no algorithm applies to %s (first: %s)",
                            tn_collective_name(request->collective),
                            first.message);
    }
    return tn_error_set(err,
                        TN_EUNSUPPORTED,
                        "auto: no algorithm implements collective %d",
                        (int)request->collective);
}

/* Whether candidate r's programs p, estimated at time_ns, fit options->held_limit (see
 * tn_tune_options): TN_OK, or TN_EUNSUPPORTED with *held the bytes they would hold. */
static tn_status
check_held(const tn_program* p,
           const tn_plan_request* r,
           const tn_tune_options* o,
           double time_ns,
           uint64_t* held,
           tn_error* err)
{
    if (!o->held_limit)
    {
        return TN_OK;
    }
    const uint64_t ranks = tn_program_ranks(p);
    uint64_t ops = tn_program_window_ops(p, 0);
    const char* how = "whole programs";
    uint64_t window = 0;
    if (ops * o->held_op_bytes > o->held_limit && o->held_window > 0)
    {
        uint32_t least = 0;
        tn_status st = tn_program_min_window(p, &least, err);
        if (st)
        {
            return st;
        }
        window = tn_program_window_width(least, o->held_window, o->held_margin);
        ops = tn_program_window_ops(p, (uint32_t)window);
        how = "windows";
    }
    if (ops * o->held_op_bytes <= o->held_limit)
    {
        return TN_OK;
    }
    *held = ops * o->held_op_bytes;
    char need[32];
    char limit[32];
    return tn_error_set(err,
                        TN_EUNSUPPORTED,
                        "%s: estimated %.3f us, but its programs would hold about %s while it "
                        "runs (%s: %llu ops on %llu ranks%s), more than the %s a collective may "
                        "hold",
                        r->algorithm,
                        time_ns / 1e3,
                        tn_memory_format(*held, need, sizeof(need)),
                        how,
                        (unsigned long long)ops,
                        (unsigned long long)ranks,
                        window ? ", the least window's margin included" : "",
                        tn_memory_format(o->held_limit, limit, sizeof(limit)));
}

/* The estimate of one applicable candidate on its path; TN_OK or the failure in err (*held
 * set when its programs would hold more than options->held_limit, *time_ns then kept). */
static tn_status
estimate(const tn_topology* topo,
         const tn_plan_request* r,
         const tn_tune_options* o,
         double* time_ns,
         bool* generated,
         uint64_t* held,
         tn_schedule** keep_schedule,
         tn_cost_result** keep_cost,
         tn_error* err)
{
    *held = 0;
    bool has_generator = tn_program_supports(r->algorithm);
    bool use_program = false;
    if (o->path == TN_TUNE_GENERATED)
    {
        if (!has_generator)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "%s: no rank-local generator (the generated path only)",
                                r->algorithm);
        }
        use_program = true;
    }
    else if (o->path == TN_TUNE_AUTO_PATH || !has_generator)
    {
        tn_plan_size size;
        tn_status st = tn_plan_estimate(topo, r, &size, err);
        if (st)
        {
            return st;
        }
        uint64_t limit = o->schedule_transfers;
        /* beyond estimate_transfers the programs rank it (the DAG would take seconds) */
        uint64_t cheap = limit < o->estimate_transfers ? limit : o->estimate_transfers;
        use_program = has_generator && o->path == TN_TUNE_AUTO_PATH && size.transfers > cheap;
        if (!has_generator && o->path == TN_TUNE_AUTO_PATH && size.transfers > limit)
        {
            return tn_error_set(err,
                                TN_EUNSUPPORTED,
                                "%s: %s%llu transfers, beyond the tuner's %llu for an algorithm "
                                "without a rank-local generator",
                                r->algorithm,
                                size.exact_transfers ? "" : "about ",
                                (unsigned long long)size.transfers,
                                (unsigned long long)limit);
        }
    }
    *generated = use_program;
    if (use_program)
    {
        tn_program* p = NULL;
        tn_status st = tn_program_create(topo, r, &p, err);
        if (st)
        {
            return st;
        }
        tn_cost_program_result cost;
        st = tn_cost_program(p, o->cost, o->sample_ranks, &cost, err);
        if (st == TN_OK)
        {
            *time_ns = cost.time_ns;
            st = check_held(p, r, o, cost.time_ns, held, err);
        }
        tn_program_destroy(p);
        return st;
    }
    tn_schedule* s = NULL;
    tn_status st = tn_plan(topo, r, &s, err);
    if (st)
    {
        return st;
    }
    tn_cost_result* cost = NULL;
    st = tn_cost_estimate(s, topo, o->routes, o->cost, &cost, err);
    if (st == TN_OK)
    {
        *time_ns = cost->time_ns;
    }
    if (st == TN_OK && keep_schedule)
    {
        *keep_schedule = s;
        *keep_cost = cost;
        return st;
    }
    tn_schedule_destroy(s);
    tn_cost_result_destroy(cost);
    return st;
}

/* An algorithm's place in the registry. */
static size_t
registry_index(const char* name)
{
    size_t count;
    return (size_t)(tn_algorithm_find(name) - tn_algorithms(&count));
}

/* Whether a goes before b: ranked before skipped, a smaller estimate first, equal ones in
 * registry order (not in the order of the array: settle_top sorts again after estimating
 * the first two on their own paths, and a tie must not depend on where they were before).
 * Skipped ones in registry order too (first_two skips some after the others are ranked). */
static bool
before(const tn_tune_candidate* a, const tn_tune_candidate* b)
{
    if ((a->skipped != NULL) != (b->skipped != NULL))
    {
        return b->skipped != NULL;
    }
    if (!a->skipped && a->estimate_ns != b->estimate_ns)
    {
        return a->estimate_ns < b->estimate_ns;
    }
    return registry_index(a->algorithm) < registry_index(b->algorithm);
}

/* keep_choice: candidate c was just estimated on its schedule s (cost): keep them if c goes
 * before the one kept (estimated in any order: the ranking, then settle_top), else drop
 * them. tn_tune_take_choice hands them out only if the kept one is the choice. */
static void
keep_if_best(tn_tune_ranking* ranking,
             const tn_tune_candidate* c,
             tn_schedule* s,
             tn_cost_result* cost)
{
    tn_tune_candidate k = {ranking->kept, ranking->kept_ns, false, NULL, 0};
    if (ranking->kept && !before(c, &k))
    {
        tn_schedule_destroy(s);
        tn_cost_result_destroy(cost);
        return;
    }
    tn_schedule_destroy(ranking->kept_schedule);
    tn_cost_result_destroy(ranking->kept_cost);
    ranking->kept = c->algorithm;
    ranking->kept_ns = c->estimate_ns;
    ranking->kept_schedule = s;
    ranking->kept_cost = cost;
}

void
tn_tune_take_choice(tn_tune_ranking* ranking, tn_schedule** schedule, tn_cost_result** cost)
{
    const tn_tune_candidate* best = tn_tune_best(ranking);
    *schedule = NULL;
    *cost = NULL;
    if (ranking->kept && best && !best->generated && strcmp(best->algorithm, ranking->kept) == 0)
    {
        *schedule = ranking->kept_schedule;
        *cost = ranking->kept_cost;
    }
    else
    {
        tn_schedule_destroy(ranking->kept_schedule);
        tn_cost_result_destroy(ranking->kept_cost);
    }
    ranking->kept = NULL;
    ranking->kept_schedule = NULL;
    ranking->kept_cost = NULL;
}

/* At most a dozen candidates. */
static void
sort_candidates(tn_tune_candidate* c, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
    {
        tn_tune_candidate key = c[i];
        uint32_t j = i;
        for (; j > 0 && before(&key, &c[j - 1]); j--)
        {
            c[j] = c[j - 1];
        }
        c[j] = key;
    }
}

/* The candidate's request: its name, and its default chunks when the request gives none. */
static tn_plan_request
candidate_request(const tn_plan_request* request, const char* algorithm)
{
    tn_plan_request r = *request;
    r.algorithm = algorithm;
    r.chunks = r.chunks ? r.chunks : tn_algorithm_default_chunks(tn_algorithm_find(algorithm));
    return r;
}

/* The choice and the runner-up on their own paths: a candidate ranked on its programs only
 * to save time (estimate_transfers, below schedule_transfers) is estimated on its schedule
 * once it is among the first two, and the ranking sorted again, until the first two are on
 * the paths tn-plan and the CollectiveService take for them. Each candidate is estimated
 * again at most once. */
static void
settle_top(const tn_topology* topo,
           const tn_plan_request* request,
           const tn_tune_options* o,
           tn_tune_ranking* ranking)
{
    if (o->path != TN_TUNE_AUTO_PATH || o->estimate_transfers >= o->schedule_transfers)
    {
        return;
    }
    tn_tune_options full = *o;
    full.estimate_transfers = o->schedule_transfers;
    for (uint32_t rounds = 0; rounds <= ranking->ranked; rounds++)
    {
        tn_tune_candidate* again = NULL;
        tn_plan_request r;
        for (uint32_t i = 0; i < 2 && i < ranking->ranked && !again; i++)
        {
            tn_tune_candidate* c = &ranking->candidates[i];
            r = candidate_request(request, c->algorithm);
            tn_plan_size size;
            tn_error e;
            if (c->generated && tn_plan_estimate(topo, &r, &size, &e) == TN_OK &&
                size.transfers <= o->schedule_transfers)
            {
                again = c;
            }
        }
        if (!again)
        {
            return;
        }
        double time_ns = again->estimate_ns;
        bool generated = true;
        uint64_t held = 0;
        tn_error e;
        tn_schedule* s = NULL;
        tn_cost_result* cost = NULL;
        if (estimate(topo,
                     &r,
                     &full,
                     &time_ns,
                     &generated,
                     &held,
                     o->keep_choice ? &s : NULL,
                     &cost,
                     &e) != TN_OK ||
            generated)
        {
            return; /* its programs' estimate stands (the memory guard refused the DAG) */
        }
        again->estimate_ns = time_ns;
        again->generated = false;
        if (s)
        {
            keep_if_best(ranking, again, s, cost);
        }
        sort_candidates(ranking->candidates, ranking->count);
    }
}

/* first_two: whether candidate request r would be estimated on programs of every rank and at
 * least TN_TUNE_DEFER_OPS ops (the estimates worth bounding first). */
static bool
deferrable(const tn_topology* topo, const tn_plan_request* r, const tn_tune_options* o)
{
    if (!o->first_two || !topo || o->path == TN_TUNE_SCHEDULE || !tn_program_supports(r->algorithm))
    {
        return false;
    }
    tn_plan_size size;
    tn_error e;
    uint64_t cheap = o->schedule_transfers < o->estimate_transfers ? o->schedule_transfers
                                                                   : o->estimate_transfers;
    if (o->path == TN_TUNE_AUTO_PATH &&
        (tn_plan_estimate(topo, r, &size, &e) != TN_OK || size.transfers <= cheap))
    {
        return false;
    }
    tn_program* p = NULL;
    if (tn_program_create(topo, r, &p, &e) != TN_OK)
    {
        return false; /* estimate() meets the same failure and skips it */
    }
    uint64_t ops = tn_program_max_ops(p) * tn_program_ranks(p);
    tn_program_destroy(p);
    return ops >= TN_TUNE_DEFER_OPS;
}

/* first_two: candidate c (deferred) skipped when its lower bound exceeds the runner-up's
 * estimate, else estimated and ranked (settle_top again: it may be among the first two).
 * TN_ENOMEM only. */
static tn_status
bound_or_estimate(const tn_topology* topo,
                  const tn_plan_request* request,
                  const tn_tune_options* o,
                  tn_tune_ranking* ranking,
                  tn_tune_candidate* c)
{
    tn_plan_request r = candidate_request(request, c->algorithm);
    tn_error e;
    const tn_tune_candidate* second = tn_tune_runner_up(ranking);
    double bound = 0;
    tn_program* p = NULL;
    if (second && tn_program_create(topo, &r, &p, &e) == TN_OK)
    {
        if (tn_cost_program_lower_bound(p, o->cost, o->sample_ranks, &bound, &e) != TN_OK)
        {
            bound = 0;
        }
    }
    tn_program_destroy(p);
    tn_status st;
    /* a margin far above the rounding of two sums of the same terms */
    if (second && bound > second->estimate_ns * (1 + 1e-9))
    {
        tn_error_set(&e,
                     TN_EUNSUPPORTED,
                     "%s: cannot be among the first two: at least %.3f us, the runner-up %.3f us",
                     c->algorithm,
                     bound / 1e3,
                     second->estimate_ns / 1e3);
        st = TN_EUNSUPPORTED;
    }
    else
    {
        st = estimate(topo, &r, o, &c->estimate_ns, &c->generated, &c->held_bytes, NULL, NULL, &e);
    }
    if (st)
    {
        c->estimate_ns = c->held_bytes ? c->estimate_ns : -1;
        char* why = strdup(e.message);
        c->skipped = why ? why : c->skipped;
        return why ? TN_OK : TN_ENOMEM;
    }
    c->skipped = NULL;
    ranking->ranked++;
    sort_candidates(ranking->candidates, ranking->count);
    settle_top(topo, request, o, ranking);
    return TN_OK;
}

void
tn_tune_ranking_destroy(tn_tune_ranking* ranking)
{
    if (!ranking)
    {
        return;
    }
    for (uint32_t i = 0; i < ranking->count; i++)
    {
        if (ranking->candidates[i].skipped != DEFERRED)
        {
            free((char*)ranking->candidates[i].skipped);
        }
    }
    tn_schedule_destroy(ranking->kept_schedule);
    tn_cost_result_destroy(ranking->kept_cost);
    free(ranking->candidates);
    free(ranking);
}

tn_status
tn_tune_rank(const tn_topology* topo,
             const tn_plan_request* request,
             const tn_tune_options* options,
             tn_tune_ranking** out,
             tn_error* err)
{
    *out = NULL;
    if (!request)
    {
        return tn_error_set(err, TN_EINVAL, "auto: request is NULL");
    }
    tn_tune_options defaults;
    tn_tune_options_init(&defaults);
    const tn_tune_options* o = options ? options : &defaults;
    size_t count;
    const tn_algorithm* table = tn_algorithms(&count);
    tn_tune_ranking* ranking = calloc(1, sizeof(*ranking));
    if (!ranking || !(ranking->candidates = calloc(count ? count : 1, sizeof(tn_tune_candidate))))
    {
        free(ranking);
        return tn_error_set(err, TN_ENOMEM, "auto: out of memory");
    }
    for (size_t i = 0; i < count; i++)
    {
        if (!serves(&table[i], request))
        {
            continue;
        }
        tn_plan_request r = candidate_request(request, table[i].name);
        tn_tune_candidate* c = &ranking->candidates[ranking->count++];
        c->algorithm = table[i].name;
        c->estimate_ns = -1;
        tn_error e;
        tn_status st = tn_plan_check(topo, &r, &e);
        if (st == TN_OK && deferrable(topo, &r, o))
        {
            /* placeholder until the others are ranked (bound_or_estimate) */
            c->skipped = DEFERRED;
            continue;
        }
        if (st == TN_OK)
        {
            tn_schedule* s = NULL;
            tn_cost_result* cost = NULL;
            st = estimate(topo,
                          &r,
                          o,
                          &c->estimate_ns,
                          &c->generated,
                          &c->held_bytes,
                          o->keep_choice ? &s : NULL,
                          &cost,
                          &e);
            if (s)
            {
                keep_if_best(ranking, c, s, cost);
            }
        }
        if (st)
        {
            c->estimate_ns = c->held_bytes ? c->estimate_ns : -1;
            c->skipped = strdup(e.message);
            if (!c->skipped)
            {
                tn_tune_ranking_destroy(ranking);
                return tn_error_set(err, TN_ENOMEM, "auto: out of memory");
            }
            continue;
        }
        ranking->ranked++;
    }
    sort_candidates(ranking->candidates, ranking->count);
    settle_top(topo, request, o, ranking);
    for (;;)
    {
        /* the deferred ones in registry order (skipped ones keep it) */
        tn_tune_candidate* c = NULL;
        for (uint32_t i = 0; i < ranking->count && !c; i++)
        {
            c = ranking->candidates[i].skipped == DEFERRED ? &ranking->candidates[i] : NULL;
        }
        if (!c)
        {
            break;
        }
        if (bound_or_estimate(topo, request, o, ranking, c) != TN_OK)
        {
            tn_tune_ranking_destroy(ranking);
            return tn_error_set(err, TN_ENOMEM, "auto: out of memory");
        }
    }
    if (ranking->ranked == 0)
    {
        char reasons[TN_ERROR_MESSAGE_SIZE];
        size_t used = 0;
        reasons[0] = 0;
        for (uint32_t i = 0; i < ranking->count && used < sizeof(reasons); i++)
        {
            used += (size_t)snprintf(reasons + used,
                                     sizeof(reasons) - used,
                                     "%s%s",
                                     i ? "; " : "",
                                     ranking->candidates[i].skipped);
        }
        tn_status st = tn_error_set(err,
                                    TN_EUNSUPPORTED,
                                    "auto: no algorithm applies to %s on %s: %s",
                                    tn_collective_name(request->collective),
                                    topo ? tn_topology_name(topo) : "no topology",
                                    ranking->count ? reasons : "no algorithm implements it");
        tn_tune_ranking_destroy(ranking);
        return st;
    }
    *out = ranking;
    return TN_OK;
}

uint32_t
tn_tune_count(const tn_tune_ranking* ranking)
{
    return ranking ? ranking->count : 0;
}

uint32_t
tn_tune_ranked(const tn_tune_ranking* ranking)
{
    return ranking ? ranking->ranked : 0;
}

const tn_tune_candidate*
tn_tune_candidate_at(const tn_tune_ranking* ranking, uint32_t i)
{
    return ranking && i < ranking->count ? &ranking->candidates[i] : NULL;
}

const tn_tune_candidate*
tn_tune_best(const tn_tune_ranking* ranking)
{
    return ranking && ranking->ranked > 0 ? &ranking->candidates[0] : NULL;
}

const tn_tune_candidate*
tn_tune_runner_up(const tn_tune_ranking* ranking)
{
    return ranking && ranking->ranked > 1 ? &ranking->candidates[1] : NULL;
}

void
tn_tune_write(const tn_tune_ranking* ranking, FILE* file)
{
    for (uint32_t i = 0; i < tn_tune_count(ranking); i++)
    {
        const tn_tune_candidate* c = tn_tune_candidate_at(ranking, i);
        if (c->skipped)
        {
            fprintf(file, "   - %-13s skipped: %s\n", c->algorithm, c->skipped);
            continue;
        }
        const char* label = i == 0 ? "chosen" : (i == 1 ? "runner-up" : NULL);
        fprintf(file,
                "  %2u %-13s %14.3f us  %-*s%s%s\n",
                i + 1,
                c->algorithm,
                c->estimate_ns / 1e3,
                label ? 8 : 0,
                c->generated ? "programs" : "DAG",
                label ? "  " : "",
                label ? label : "");
    }
}
