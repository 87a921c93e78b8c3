/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The reader of [[job]] tables (contract in scenario-reader.h): several training jobs on one
 * fabric. Each table is placed on its NPUs (an explicit list, or packed, spread or random
 * among the NPUs the earlier jobs left), then read by the [training] reader itself
 * (ReadTrainingTable over the job's table and NPU count), so a job takes every key and
 * workload kind [training] does; a run-time scheduler runs over the dims of the job's NPUs
 * (their sub-grid: tn_topology_subgrid), refused when they form none.
 */
#include "roce-helper.h"
#include "scenario-reader.h"

#include <algorithm>
#include <random>

namespace ns3
{
namespace scenario
{

namespace
{

/// The placements a job may ask for ("list" is the npus list itself).
const std::vector<std::string> kPlacements = {"packed", "spread", "random"};

/**
 * `count` NPUs among `free` (ascending topology NPU ranks): packed takes the first, spread
 * takes them evenly spaced (one every free/count: across servers and leaves when the NPUs are
 * numbered by server), random a seeded draw (mt19937_64, whose sequence the standard fixes, and
 * a Fisher-Yates of our own: std::shuffle differs between libraries). Ranks in ascending NPU
 * order.
 */
std::vector<uint32_t>
Place(const std::string& placement,
      const std::vector<uint32_t>& free,
      uint32_t count,
      uint64_t seed)
{
    std::vector<uint32_t> picked;
    if (placement == "packed")
    {
        picked.assign(free.begin(), free.begin() + count);
    }
    else if (placement == "spread")
    {
        for (uint32_t i = 0; i < count; i++)
        {
            picked.push_back(free[uint64_t(i) * free.size() / count]);
        }
    }
    else
    {
        std::vector<uint32_t> pool = free;
        std::mt19937_64 rng(seed);
        for (size_t i = 0; i < count; i++)
        {
            const size_t j = i + size_t(rng() % (pool.size() - i));
            std::swap(pool[i], pool[j]);
        }
        picked.assign(pool.begin(), pool.begin() + count);
        std::sort(picked.begin(), picked.end());
    }
    return picked;
}

} // namespace

void
ReadJobTables(PointContext& ctx, const toml::node* jobNode, const toml::node* isolate)
{
    PointReader& r = ctx.r;
    ScenarioPoint& p = ctx.p;
    const toml::array* list = jobNode->as_array();
    if (!list || !list->is_array_of_tables())
    {
        r.Fail(jobNode, "job", "expected [[job]] tables, got " + TypeName(*jobNode));
    }
    if (isolate && !isolate->is_boolean())
    {
        r.Fail(isolate, "isolate", "expected true or false, got " + TypeName(*isolate));
    }
    if (ctx.ranks > 1)
    {
        r.Fail(jobNode,
               "job",
               "several jobs run in one process, not over " + std::to_string(ctx.ranks) +
                   " MPI ranks");
    }
    p.isolate = isolate && isolate->as_boolean()->get();
    r.Param("isolate", p.isolate ? "true" : "false");
    if (p.mode == RoceFabric::GetModeName(RoceFabric::FLOW_SYMMETRIC))
    {
        r.Fail(r.Resolve(ctx.cfg.root.get("mode")),
               "mode",
               "flow-symmetric runs one NPU set for all, and a job on some of them breaks that "
               "symmetry: not several jobs (mode = \"flow\" or \"packet\")");
    }
    const uint32_t npus = tn_topology_npu_count(ctx.t);
    std::vector<uint32_t> owner(npus, 0); // the job holding each NPU (0: free)

    struct Pending
    {
        size_t index;
        const toml::node* npusNode;
        uint32_t count;
        uint64_t seed; //!< random's
    };

    std::vector<Pending> placed; // jobs with a placement: after every explicit list
    p.jobs.resize(list->size());
    for (size_t i = 0; i < list->size(); i++)
    {
        const std::string path = "job[" + std::to_string(i) + "]";
        const toml::table* jt = list->get(i)->as_table();
        ScenarioJob& job = p.jobs[i];
        job.id = uint32_t(i + 1);
        TableReader keys(r, jt, path);
        job.name = keys.String("name", "job" + std::to_string(job.id));
        job.startNs = keys.TimeNs("start", 0);
        const toml::node* placeNode = r.Resolve(jt->get("placement"));
        // npus: a list is the job's NPUs (rank r on the r-th); a count is placed
        keys.Known("npus");
        const toml::node* npusNode = jt->get("npus");
        if (!npusNode)
        {
            keys.Missing("npus");
        }
        if (const toml::array* given = npusNode->as_array())
        {
            if (placeNode)
            {
                r.Fail(placeNode,
                       path + ".placement",
                       "npus lists the NPUs; a placement places a count (npus = 8)");
            }
            keys.Known("placement");
            job.placement = "list";
            for (const toml::node& item : *given)
            {
                const int64_t npu = item.is_integer() ? item.as_integer()->get() : -1;
                if (npu < 0 || uint64_t(npu) >= npus)
                {
                    r.Fail(&item,
                           path + ".npus",
                           "expected an NPU index (an integer below " + std::to_string(npus) +
                               ", the topology's NPUs)");
                }
                if (owner[npu])
                {
                    r.Fail(&item,
                           path + ".npus",
                           "NPU " + std::to_string(npu) +
                               (owner[npu] == job.id
                                    ? " is listed twice"
                                    : " is held by job '" + p.jobs[owner[npu] - 1].name +
                                          "' (jobs hold disjoint NPUs)"));
                }
                owner[npu] = job.id;
                job.npus.push_back(uint32_t(npu));
            }
            r.Param(path + ".npus", ValueJson(*npusNode));
        }
        else
        {
            const uint64_t count = keys.Uint("npus", 0, 1, npus);
            job.placement = keys.Choice("placement", "packed", kPlacements);
            placed.push_back({i, npusNode, uint32_t(count), 0});
        }
        // random's seed; the point's seed unless given
        const uint64_t seed = keys.Uint("seed", p.seed, 0, UINT64_MAX >> 1);
        if (job.placement != "random" && jt->contains("seed"))
        {
            r.Fail(r.Resolve(jt->get("seed")),
                   path + ".seed",
                   "seeds placement = \"random\" only, not " + job.placement);
        }
        if (!placed.empty() && placed.back().index == i)
        {
            placed.back().seed = seed;
        }
    }
    for (const Pending& pending : placed)
    {
        ScenarioJob& job = p.jobs[pending.index];
        const std::string path = "job[" + std::to_string(pending.index) + "]";
        std::vector<uint32_t> free;
        for (uint32_t n = 0; n < npus; n++)
        {
            if (!owner[n])
            {
                free.push_back(n);
            }
        }
        if (pending.count > free.size())
        {
            r.Fail(r.Resolve(pending.npusNode),
                   path + ".npus",
                   std::to_string(pending.count) + " NPUs asked, " + std::to_string(free.size()) +
                       " free of the topology's " + std::to_string(npus) +
                       " (the other jobs hold the rest)");
        }
        job.npus = Place(job.placement, free, pending.count, pending.seed);
        for (uint32_t n : job.npus)
        {
            owner[n] = job.id;
        }
    }
    // what each job runs: the [training] reader over the job's table and NPUs
    for (size_t i = 0; i < list->size(); i++)
    {
        ScenarioJob& job = p.jobs[i];
        job.training = std::make_shared<ScenarioPoint>();
        ScenarioPoint& jp = *job.training;
        jp.mode = p.mode;
        jp.seed = p.seed;
        PointContext jobCtx{r, jp, ctx.cfg, ctx.top, ctx.topologies, ctx.ranks, ctx.t};
        jobCtx.training = "job[" + std::to_string(i) + "]";
        jobCtx.npus = uint32_t(job.npus.size());
        jobCtx.jobKeys = {"name", "npus", "placement", "seed", "start"};
        const toml::table* jt = list->get(i)->as_table();
        ReadTrainingTable(jobCtx, jt);
        // a run-time scheduler splits the job's collectives over the dims of the job's own
        // NPUs (CollectiveService::CreateScheduled): refused here, with the key, when they
        // form none, rather than at the run's set-up
        std::vector<tn_dim_info> grid(tn_topology_dim_count(ctx.t));
        std::vector<uint32_t> order(job.npus.size());
        uint32_t dims = 0;
        tn_error err;
        if (!jp.trainingScheduler.empty() && tn_topology_subgrid(ctx.t,
                                                                 job.npus.data(),
                                                                 uint32_t(job.npus.size()),
                                                                 grid.data(),
                                                                 &dims,
                                                                 order.data(),
                                                                 &err) != TN_OK)
        {
            r.Fail(r.Resolve(jt->get("scheduler")),
                   jobCtx.Key("scheduler"),
                   "job '" + job.name + "': scheduler '" + jp.trainingScheduler +
                       "' splits collectives over the dimensions of the job's NPUs, and " +
                       err.message + " (or scheduler = \"planned\")");
        }
    }
    p.installNpus = true;
}

} // namespace scenario
} // namespace ns3
