/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Training jobs: ASTRA-sim workloads run on NPU endpoints, checked against closed forms.
 */
#include "tn-test-data.h"

#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/stats-helper.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/training-helper.h"
#include "ns3/uinteger.h"

#include <map>
#include <memory>
#include <sqlite3.h>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/** What one training run gave at NPU 0. */
struct TrainingRun
{
    std::string error;
    bool complete{false};
    double iterationNs{0};   //!< first iteration
    double computeNs{0};     //!< its compute kernels
    double exposedNs{0};     //!< its waiting for communication
    double estimateNs{0};    //!< sum of the cost-model estimates of NPU 0's collectives
    uint32_t iterations{0};  //!< iterations recorded at NPU 0
    uint64_t collectives{0}; //!< collectives created
    uint64_t plansBuilt{0};  //!< plans the helper built (identical requests share one)
    uint64_t held{0};        //!< collectives the job still held at the end
    uint64_t scheduled{0};   //!< operations scheduled at run time (Scheduler)
};

/** Run `file` on spec's NPUs with the given engine and job options. */
TrainingRun
RunTraining(const std::string& file,
            const std::string& spec,
            const std::string& engine,
            bool overlap,
            bool network,
            const std::string& memory = "7200Gbps",
            uint32_t iterations = 1,
            uint32_t modelGroup = 0,
            const std::string& scheduler = "",
            const std::string& allReduce = "")
{
    TrainingRun out;
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        out.error = err.message;
        return out;
    }
    RoceHelper roce;
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.Install(topo, roce);
    NpuHelper npus;
    npus.SetEndpointAttribute("Engine", StringValue(engine));
    npus.SetEndpointAttribute("MemoryBandwidth", DataRateValue(DataRate(memory)));
    npus.Install(roce.GetFabric().npus);
    TrainingHelper training;
    // pinned: the figures checked here are the flat ring's (a job's default is auto)
    training.SetAlgorithms("ring");
    training.SetJobAttribute("Overlap", BooleanValue(overlap));
    training.SetJobAttribute("Network", BooleanValue(network));
    training.SetJobAttribute("Iterations", UintegerValue(iterations));
    training.SetJobAttribute("Scheduler", StringValue(scheduler));
    training.SetJobAttribute("ThemisChunks", UintegerValue(8));
    if (!allReduce.empty())
    {
        training.SetAlgorithm(TN_COLL_ALL_REDUCE, allReduce);
    }
    Ptr<TrainingJob> job;
    if (training.Load(file, &out.error))
    {
        job = training.Install(collectives, npus, modelGroup, &out.error);
    }
    if (job)
    {
        job->Start();
        Simulator::Run();
        out.complete = job->IsComplete();
        const auto& log = job->GetIterations(0);
        out.iterations = log.size();
        if (!log.empty())
        {
            out.iterationNs = (log[0].end - log[0].start).GetNanoSeconds();
            out.computeNs = log[0].compute.GetNanoSeconds();
            out.exposedNs = log[0].exposed.GetNanoSeconds();
        }
        for (const auto& c : collectives.GetCollectives())
        {
            out.estimateNs += c->GetEstimatedTime().GetNanoSeconds();
        }
        out.collectives = job->GetCollectiveCount();
        out.plansBuilt = collectives.GetPlansBuilt();
        out.held = job->GetCollectivesHeld();
        out.scheduled = job->GetScheduledCount();
    }
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return out;
}

/** Sum of a workload's compute and update cycles (1 GHz: ns), read independently. */
double
SumCycles(const std::string& file)
{
    tn_error err;
    tn_workload* wl = nullptr;
    if (tn_workload_load_file(file.c_str(), &wl, &err) != TN_OK)
    {
        return -1;
    }
    double sum = 0;
    for (uint32_t i = 0; i < tn_workload_layer_count(wl); i++)
    {
        const tn_workload_layer* l = tn_workload_layer_at(wl, i);
        for (int p = 0; p < TN_PASS_COUNT; p++)
        {
            sum += l->pass[p].compute_cycles;
        }
        sum += l->update_delay;
    }
    tn_workload_destroy(wl);
    return sum;
}

} // namespace

/**
 * \ingroup training-net-tests
 * Resnet-50 (data parallel, 54 layers) on 16 NPUs: with an infinite network an iteration is
 * the sum of the compute and update times; without overlap it is compute plus communication,
 * where communication is the collectives' time (within 5% of their cost model, run one at a
 * time); with overlap it is shorter, yet no shorter than its compute; two iterations give two
 * records at every NPU.
 */
class TrainingClosedFormTestCase : public TnDataTestCase
{
  public:
    TrainingClosedFormTestCase()
        : TnDataTestCase("Resnet-50 on 16 NPUs: compute only, no overlap, overlap")
    {
    }

  private:
    void DoRun() override
    {
        const std::string file = DataFile("workloads/Resnet50_DataParallel.txt");
        const std::string spec = "switch:16,rate=100Gbps,latency=1us";
        const double cycles = SumCycles(file);
        NS_TEST_ASSERT_MSG_GT(cycles, 0, "workload read");

        TrainingRun computeOnly = RunTraining(file, spec, "ace", true, false);
        NS_TEST_ASSERT_MSG_EQ(computeOnly.error, "", "compute only");
        NS_TEST_EXPECT_MSG_EQ(computeOnly.complete, true, "compute only completes");
        NS_TEST_EXPECT_MSG_EQ_TOL(computeOnly.iterationNs, cycles, 60, "iteration = compute");
        NS_TEST_EXPECT_MSG_EQ(computeOnly.collectives, 0u, "no collective");

        TrainingRun serial = RunTraining(file, spec, "ace", false, true);
        NS_TEST_ASSERT_MSG_EQ(serial.error, "", "no overlap");
        NS_TEST_EXPECT_MSG_EQ(serial.complete, true, "no overlap completes");
        NS_TEST_EXPECT_MSG_EQ_TOL(serial.computeNs, cycles, 60, "the same compute");
        NS_TEST_EXPECT_MSG_EQ_TOL(serial.iterationNs,
                                  serial.computeNs + serial.exposedNs,
                                  60,
                                  "iteration = compute + communication, no gap");
        NS_TEST_EXPECT_MSG_EQ_TOL(serial.exposedNs / serial.estimateNs,
                                  1.0,
                                  0.05,
                                  "communication = the collectives' time");

        TrainingRun overlap = RunTraining(file, spec, "ace", true, true, "7200Gbps", 2);
        NS_TEST_ASSERT_MSG_EQ(overlap.error, "", "overlap");
        NS_TEST_EXPECT_MSG_EQ(overlap.complete, true, "overlap completes");
        NS_TEST_EXPECT_MSG_EQ(overlap.iterations, 2u, "two iterations");
        NS_TEST_EXPECT_MSG_LT(overlap.iterationNs, serial.iterationNs, "overlap hides some");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(overlap.iterationNs, cycles, "but not the compute");
        NS_TEST_EXPECT_MSG_LT(overlap.exposedNs, serial.exposedNs, "less exposed");
    }
};

/**
 * \ingroup training-net-tests
 * ACE against baseline endpoints on a data-parallel iteration: shorter when the memory
 * bandwidth is the bottleneck (baseline collectives take compute and 3.5 bytes of memory per
 * network byte), and within 5% when it is not... unless compute sharing alone differs: with
 * the default 900 GB/s the baseline still loses its 20% compute share while collectives run.
 */
class TrainingAceTestCase : public TnDataTestCase
{
  public:
    TrainingAceTestCase()
        : TnDataTestCase("ACE vs baseline endpoints on a data-parallel iteration")
    {
    }

  private:
    void DoRun() override
    {
        const std::string file = DataFile("workloads/Resnet50_DataParallel.txt");
        const std::string spec = "switch:16,rate=100Gbps,latency=1us";
        TrainingRun base = RunTraining(file, spec, "baseline", true, true, "200Gbps");
        TrainingRun ace = RunTraining(file, spec, "ace", true, true, "200Gbps");
        NS_TEST_ASSERT_MSG_EQ(base.error + ace.error, "", "both ran");
        NS_TEST_EXPECT_MSG_LT(ace.iterationNs,
                              base.iterationNs,
                              "memory-bound: ACE " << ace.iterationNs << " ns, baseline "
                                                   << base.iterationNs << " ns");
        TrainingRun baseFast = RunTraining(file, spec, "baseline", true, false);
        TrainingRun aceFast = RunTraining(file, spec, "ace", true, false);
        NS_TEST_EXPECT_MSG_EQ_TOL(baseFast.iterationNs / aceFast.iterationNs,
                                  1.0,
                                  0.001,
                                  "no communication: the engines do not matter");
    }
};

/**
 * \ingroup training-net-tests
 * Every shipped workload (data, model and hybrid parallel, micro benchmarks) runs two
 * iterations on a 16-NPU 4x4 system (model-parallel groups of 4, the first dimension, as
 * ASTRA-sim takes them): complete, and no iteration shorter than its compute.
 */
class TrainingWorkloadsTestCase : public TnDataTestCase
{
  public:
    TrainingWorkloadsTestCase()
        : TnDataTestCase("every shipped workload runs on 16 NPUs")
    {
    }

  private:
    void DoRun() override
    {
        const char* files[] = {"Resnet50_DataParallel.txt",
                               "MLP_HybridParallel_Data_Model.txt",
                               "MLP_ModelParallel.txt",
                               "microAllReduce.txt",
                               "microAllToAll.txt",
                               "Transformer_FwdInBckwd_small.txt"};
        for (const char* f : files)
        {
            const std::string file = DataFile(std::string("workloads/") + f);
            TrainingRun r = RunTraining(file,
                                        "hier:switch4@400Gbps+switch4@100Gbps",
                                        "ace",
                                        true,
                                        true,
                                        "7200Gbps",
                                        2,
                                        4);
            NS_TEST_EXPECT_MSG_EQ(r.error, "", f);
            NS_TEST_EXPECT_MSG_EQ(r.complete, true, f << " completes");
            NS_TEST_EXPECT_MSG_EQ(r.iterations, 2u, f << ": two iterations");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(r.iterationNs + 1, r.computeNs, f);
            // the second iteration runs the first one's plans (layers of one size share too)
            NS_TEST_EXPECT_MSG_GT(r.plansBuilt, 0u, f << ": plans");
            NS_TEST_EXPECT_MSG_EQ(r.held, 0u, f << ": finished collectives let go");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(2 * r.plansBuilt,
                                        r.collectives,
                                        f << ": each plan built once for both iterations");
        }
    }
};

/**
 * \ingroup training-net-tests
 * Collective ids follow what a collective is for, not the order members reach it (so that
 * MPI ranks, each seeing only its own NPUs arrive, name a collective alike): every shipped
 * workload, 2 iterations on 16 NPUs in model-parallel groups of 4 (inner and outer groups),
 * run twice, the second time with NPU 0's clock 4x slower so that the groups without NPU 0
 * reach each pass first. Each run uses every reserved id once (as many collectives as ids,
 * none twice); TrainingJob::DecodeId of an id gives a layer and pass whose bytes are the
 * collective's and a group whose first NPU is the collective's rank 0; the two runs give
 * every id to the same (bytes, first NPU).
 */
class TrainingIdsTestCase : public TnDataTestCase
{
  public:
    TrainingIdsTestCase()
        : TnDataTestCase("collective ids follow (iteration, layer, pass, group)")
    {
    }

  private:
    /// per id: (bytes, node of group rank 0), as created
    std::map<uint32_t, std::pair<uint64_t, uint32_t>> m_created;
    std::vector<uint32_t> m_order; //!< ids in creation order
    Ptr<TrainingJob> m_job;
    const tn_workload* m_workload{nullptr};
    std::string m_file;

    void Created(Ptr<Collective> c)
    {
        NS_TEST_EXPECT_MSG_EQ(m_created.count(c->GetId()), 0u, m_file << ": id given twice");
        m_created[c->GetId()] = {c->GetBytes(), c->GetNode(0)};
        m_order.push_back(c->GetId());
        uint32_t iteration = 0;
        uint32_t layer = 0;
        int pass = 0;
        uint32_t part = 0;
        uint32_t first = 0;
        NS_TEST_EXPECT_MSG_EQ(m_job->DecodeId(c->GetId(), &iteration, &layer, &pass, &part, &first),
                              true,
                              m_file << ": id " << c->GetId());
        const tn_pass p = pass == TN_PASS_COUNT ? TN_PASS_FWD : tn_pass(pass);
        tn_collective kinds[2];
        tn_comm_type_collectives(tn_workload_layer_at(m_workload, layer)->pass[p].comm, kinds);
        NS_TEST_EXPECT_MSG_LT(iteration, 2u, m_file);
        NS_TEST_EXPECT_MSG_EQ(c->GetBytes(),
                              tn_workload_layer_at(m_workload, layer)->pass[p].comm_bytes,
                              m_file << ": id " << c->GetId() << " layer " << layer);
        NS_TEST_EXPECT_MSG_EQ(std::string(c->GetCollectiveName()),
                              std::string(tn_collective_name(kinds[part])),
                              m_file << ": id " << c->GetId() << " part " << part);
        // NPU rank r is node r on a hier: system
        NS_TEST_EXPECT_MSG_EQ(c->GetNode(0), first, m_file << ": id " << c->GetId());
    }

    /// Run `file`; m_created and m_order then hold what was created.
    void Run(const std::string& file, bool slowNpu0)
    {
        m_created.clear();
        m_order.clear();
        m_file = file;
        tn_error err;
        tn_topology* topo = nullptr;
        NS_ABORT_IF(tn_topology_from_spec("hier:switch4@400Gbps+switch4@100Gbps", &topo, &err) !=
                    TN_OK);
        RoceHelper roce;
        roce.Install(topo);
        CollectiveHelper collectives;
        collectives.Install(topo, roce);
        NpuHelper npus;
        npus.Install(roce.GetFabric().npus);
        if (slowNpu0)
        {
            npus.GetEndpoint(0)->SetAttribute("ClockRate", UintegerValue(250000000));
        }
        TrainingHelper training;
        // pinned: the figures checked here are the flat ring's (a job's default is auto)
        training.SetAlgorithms("ring");
        training.SetJobAttribute("Iterations", UintegerValue(2));
        std::string error;
        NS_TEST_ASSERT_MSG_EQ(training.Load(DataFile("workloads/" + file), &error), true, error);
        m_workload = training.GetWorkload();
        m_job = training.Install(collectives, npus, 4, &error);
        NS_TEST_ASSERT_MSG_EQ(bool(m_job), true, error);
        m_job->TraceConnectWithoutContext("CollectiveCreated",
                                          MakeCallback(&TrainingIdsTestCase::Created, this));
        m_job->Start();
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(m_job->IsComplete(), true, file);
        NS_TEST_EXPECT_MSG_EQ(m_job->GetCollectiveCount(), uint64_t(m_created.size()), file);
        if (!m_created.empty())
        {
            // every reserved id used once: a dense block
            NS_TEST_EXPECT_MSG_EQ(m_created.rbegin()->first - m_created.begin()->first + 1,
                                  uint32_t(m_created.size()),
                                  file << ": ids " << m_created.begin()->first << ".."
                                       << m_created.rbegin()->first);
        }
        m_job = nullptr;
        Simulator::Destroy();
        tn_topology_destroy(topo);
    }

    void DoRun() override
    {
        const char* files[] = {"Resnet50_DataParallel.txt",
                               "MLP_HybridParallel_Data_Model.txt",
                               "MLP_ModelParallel.txt",
                               "microAllReduce.txt",
                               "microAllToAll.txt",
                               "Transformer_FwdInBckwd_small.txt"};
        bool reordered = false;
        for (const char* f : files)
        {
            Run(f, false);
            const auto even = m_created;
            const std::vector<uint32_t> evenOrder = m_order;
            Run(f, true);
            const auto skewed = m_created;
            NS_TEST_EXPECT_MSG_GT(even.size(), 0u, f << ": collectives");
            NS_TEST_EXPECT_MSG_EQ((even == skewed), true, f << ": the same ids in both runs");
            reordered = reordered || evenOrder != m_order;
        }
        // the slow NPU changed the creation order somewhere (else the test shows nothing)
        NS_TEST_EXPECT_MSG_EQ(reordered, true, "creation order changed by the slow NPU");
    }
};

/**
 * \ingroup training-net-tests
 * Activation recomputation (HYBRID_TRANSFORMER_FWD_IN_BCKWD, test/data/workloads/
 * Transformer_FwdInBckwd_small.txt: checkpoints 0 and 3, initiated at layers 5 and 2): the
 * backward pass runs the forward passes of layers 3, 4, 0 and 1 again, so with an infinite
 * network an iteration is the workload's cycles plus their 4800 forward cycles, and on the
 * network (4 NPUs, model-parallel groups of 2: two groups per pass, every pass with a
 * collective) the job creates 6 layers x 3 passes x 2 groups = 36 collectives plus
 * 4 recomputed forward passes x 2 groups = 8; without overlap the iteration is compute plus
 * communication.
 */
class TrainingRecomputeTestCase : public TnDataTestCase
{
  public:
    TrainingRecomputeTestCase()
        : TnDataTestCase("training: checkpointed forward passes recomputed (FWD_IN_BCKWD)")
    {
    }

  private:
    void DoRun() override
    {
        const std::string file = DataFile("workloads/Transformer_FwdInBckwd_small.txt");
        const double cycles = SumCycles(file);
        NS_TEST_ASSERT_MSG_GT(cycles, 0, "workload read");
        const double recomputed = 1300 + 1400 + 1000 + 1100;

        TrainingRun computeOnly = RunTraining(file, "switch:4", "ace", true, false);
        NS_TEST_ASSERT_MSG_EQ(computeOnly.error, "", "compute only");
        NS_TEST_EXPECT_MSG_EQ(computeOnly.complete, true, "completes");
        NS_TEST_EXPECT_MSG_EQ_TOL(computeOnly.iterationNs,
                                  cycles + recomputed,
                                  1,
                                  "iteration = compute + the recomputed forward passes");

        TrainingRun serial = RunTraining(file, "switch:4", "ace", false, true);
        NS_TEST_ASSERT_MSG_EQ(serial.error, "", "on the network");
        NS_TEST_EXPECT_MSG_EQ(serial.complete, true, "completes on the network");
        NS_TEST_EXPECT_MSG_EQ(serial.collectives, 36u + 8u, "recomputed forward collectives");
        NS_TEST_EXPECT_MSG_EQ_TOL(serial.computeNs, cycles + recomputed, 1, "compute");
        NS_TEST_EXPECT_MSG_EQ_TOL(serial.iterationNs,
                                  serial.computeNs + serial.exposedNs,
                                  60,
                                  "iteration = compute + communication");
    }
};

/**
 * \ingroup training-net-tests
 * Layer records (LayerEnd) of Resnet-50 with overlap on a two-level system, two iterations:
 * one per pass of every layer per iteration at every NPU; at every NPU their compute and
 * exposed times add up to its iterations' (every wait is charged to the pass that ended it),
 * each pass ends no earlier than it starts, and a weight-gradient pass with overlap ends after
 * its kernel (its collective runs on).
 */
class TrainingLayerRecordsTestCase : public TnDataTestCase
{
  public:
    TrainingLayerRecordsTestCase()
        : TnDataTestCase("layer records add up to the iterations")
    {
    }

  private:
    void Record(const TrainingLayerRecord& r)
    {
        m_records.push_back(r);
    }

    void DoRun() override
    {
        tn_error err;
        tn_topology* topo = nullptr;
        NS_TEST_ASSERT_MSG_EQ(
            tn_topology_from_spec("hier:switch4@400Gbps+switch4@100Gbps", &topo, &err),
            TN_OK,
            "topology");
        RoceHelper roce;
        roce.Install(topo);
        CollectiveHelper collectives;
        collectives.Install(topo, roce);
        NpuHelper npus;
        npus.Install(roce.GetFabric().npus);
        TrainingHelper training;
        // pinned: the figures checked here are the flat ring's (a job's default is auto)
        training.SetAlgorithms("ring");
        training.SetJobAttribute("Iterations", UintegerValue(2));
        std::string error;
        const std::string file = DataFile("workloads/Resnet50_DataParallel.txt");
        NS_TEST_ASSERT_MSG_EQ(training.Load(file, &error), true, error);
        Ptr<TrainingJob> job = training.Install(collectives, npus, 4, &error);
        NS_TEST_ASSERT_MSG_NE(job, nullptr, error);
        job->TraceConnectWithoutContext("LayerEnd",
                                        MakeCallback(&TrainingLayerRecordsTestCase::Record, this));
        job->Start();
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(job->IsComplete(), true, "completes");
        tn_workload* wl = nullptr;
        NS_TEST_ASSERT_MSG_EQ(tn_workload_load_file(file.c_str(), &wl, &err), TN_OK, "load");
        const uint32_t layers = tn_workload_layer_count(wl);
        tn_workload_destroy(wl);
        NS_TEST_EXPECT_MSG_EQ(m_records.size(), 16u * 2 * 3 * layers, "one per pass");
        uint32_t wgAfterKernel = 0;
        for (uint32_t rank = 0; rank < 16; rank++)
        {
            Time compute;
            Time exposed;
            for (const auto& it : job->GetIterations(rank))
            {
                compute += it.compute;
                exposed += it.exposed;
            }
            Time layerCompute;
            Time layerExposed;
            for (const auto& r : m_records)
            {
                if (r.rank != rank)
                {
                    continue;
                }
                layerCompute += r.compute;
                layerExposed += r.exposed;
                NS_TEST_EXPECT_MSG_GT_OR_EQ(r.end, r.start + r.compute, r.name << " ends last");
                wgAfterKernel += r.pass == TN_PASS_WG && r.end > r.start + r.compute ? 1 : 0;
            }
            NS_TEST_EXPECT_MSG_EQ(layerCompute, compute, "compute adds up at NPU " << rank);
            NS_TEST_EXPECT_MSG_EQ(layerExposed, exposed, "exposed adds up at NPU " << rank);
        }
        NS_TEST_EXPECT_MSG_GT(wgAfterKernel, 0u, "wg collectives overlap what follows");
        Simulator::Destroy();
        tn_topology_destroy(topo);
    }

    std::vector<TrainingLayerRecord> m_records;
};

/**
 * \ingroup training-net-tests
 * Themis at run time in a training job (Scheduler): a data-parallel all-reduce on a
 * heterogeneous 2D system (400 and 100 Gb/s) runs as an operation scheduled at run time at
 * every iteration, each NPU starting its part when it reaches it; SCF is not slower than the
 * fixed dimension order run by the same machinery, and faster than one ring over all NPUs; a
 * model-parallel layer's collectives (groups of 4) stay planned; an unknown scheduler is
 * refused.
 */
class TrainingThemisTestCase : public TnDataTestCase
{
  public:
    TrainingThemisTestCase()
        : TnDataTestCase("training with Themis at run time")
    {
    }

  private:
    void DoRun() override
    {
        const std::string spec = "hier:switch4@400Gbps+switch4@100Gbps";
        const std::string file = DataFile("workloads/microAllReduce.txt");
        TrainingRun planned = RunTraining(file, spec, "ace", true, true, "7200Gbps", 2, 0, "");
        TrainingRun fixed = RunTraining(file, spec, "ace", true, true, "7200Gbps", 2, 0, "fixed");
        TrainingRun scf =
            RunTraining(file, spec, "ace", true, true, "7200Gbps", 2, 0, "themis-scf");
        for (const TrainingRun* r : {&planned, &fixed, &scf})
        {
            NS_TEST_ASSERT_MSG_EQ(r->error, "", "runs");
            NS_TEST_EXPECT_MSG_EQ(r->complete, true, "completes");
            NS_TEST_EXPECT_MSG_EQ(r->iterations, 2u, "two iterations");
            NS_TEST_EXPECT_MSG_GT(r->exposedNs, 0, "communication exposed");
        }
        NS_TEST_EXPECT_MSG_EQ(planned.scheduled, 0u, "planned: nothing scheduled");
        NS_TEST_EXPECT_MSG_EQ(scf.scheduled, 2u, "one operation per iteration");
        NS_TEST_EXPECT_MSG_EQ(scf.collectives, 0u, "and no planned collective");
        NS_TEST_EXPECT_MSG_EQ(scf.held, 0u, "let go when done");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(scf.iterationNs,
                                    fixed.iterationNs * 1.02,
                                    "SCF not slower than the fixed order");
        NS_TEST_EXPECT_MSG_LT(scf.iterationNs, planned.iterationNs, "faster than one ring");
        // the hybrid workload's model-parallel groups of 4 stay planned; its data-parallel
        // groups (4 NPUs of 16) too: Themis runs on all NPUs only
        TrainingRun hybrid = RunTraining(DataFile("workloads/MLP_HybridParallel_Data_Model.txt"),
                                         spec,
                                         "ace",
                                         true,
                                         true,
                                         "7200Gbps",
                                         1,
                                         4,
                                         "themis-scf");
        NS_TEST_EXPECT_MSG_EQ(hybrid.error, "", "hybrid");
        NS_TEST_EXPECT_MSG_EQ(hybrid.complete, true, "hybrid completes");
        NS_TEST_EXPECT_MSG_GT(hybrid.collectives, 0u, "planned group collectives");
        TrainingRun bad = RunTraining(file, spec, "ace", true, true, "7200Gbps", 1, 0, "sjf");
        NS_TEST_EXPECT_MSG_NE(bad.error.find("Scheduler 'sjf'"), std::string::npos, bad.error);
    }
};

/**
 * \ingroup training-net-tests
 * A workload that needs more NPUs than there are is refused with a message; a missing file
 * names the file; an all-reduce algorithm that cannot run on the job's NPUs is refused at
 * set-up, naming the layer (not when the run reaches the layer).
 */
class TrainingRefusalTestCase : public TnDataTestCase
{
  public:
    TrainingRefusalTestCase()
        : TnDataTestCase("training: impossible workloads are refused")
    {
    }

  private:
    void DoRun() override
    {
        TrainingRun missing =
            RunTraining(DataFile("workloads/nope.txt"), "switch:4", "ace", true, true);
        NS_TEST_EXPECT_MSG_NE(missing.error.find("nope.txt"), std::string::npos, missing.error);
        // the hybrid file's model-parallel group does not fit 3 NPUs
        TrainingRun small = RunTraining(DataFile("workloads/MLP_HybridParallel_Data_Model.txt"),
                                        "switch:3",
                                        "ace",
                                        true,
                                        true);
        NS_TEST_EXPECT_MSG_NE(small.error, "", "refused: " << small.error);
        NS_TEST_EXPECT_MSG_EQ(small.complete, false, "nothing ran");
        // Swing pairs ranks by +-rho(s): a power of two of them only
        TrainingRun swing = RunTraining(DataFile("workloads/Resnet50_DataParallel.txt"),
                                        "switch:6",
                                        "ace",
                                        true,
                                        true,
                                        "7200Gbps",
                                        1,
                                        0,
                                        "",
                                        "swing");
        NS_TEST_EXPECT_MSG_EQ(swing.error.rfind("layer ", 0), 0u, swing.error);
        NS_TEST_EXPECT_MSG_NE(swing.error.find("swing: needs a power-of-two number of ranks"),
                              std::string::npos,
                              swing.error);
        NS_TEST_EXPECT_MSG_EQ(swing.iterations, 0u, "nothing ran");
    }
};

/** Per job: NPU 0's first iteration (ns), or -1 when the job did not complete. */
struct JobsRun
{
    std::string error;
    std::vector<double> iterationNs;
    bool groupsOwn{true}; //!< every collective's nodes are one job's NPUs, rank for rank
    double rateBps{0};    //!< an NPU's cable
};

/** Jobs of microAllReduce on switch:8, job k on NPUs npus[k] (SetNpus), all at once. */
JobsRun
RunJobs(const std::string& file, const std::vector<std::vector<uint32_t>>& npus)
{
    JobsRun out;
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec("switch:8", &topo, &err) != TN_OK)
    {
        out.error = err.message;
        return out;
    }
    out.rateBps = double(tn_topology_link(topo, 0)->rate_bps);
    RoceHelper roce;
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.Install(topo, roce);
    NpuHelper endpoints;
    endpoints.Install(roce.GetFabric().npus);
    std::vector<std::unique_ptr<TrainingHelper>> helpers;
    std::vector<Ptr<TrainingJob>> jobs;
    for (const std::vector<uint32_t>& list : npus)
    {
        helpers.push_back(std::make_unique<TrainingHelper>());
        helpers.back()->SetAlgorithms("ring");
        helpers.back()->SetNpus(list);
        Ptr<TrainingJob> job;
        if (helpers.back()->Load(file, &out.error))
        {
            job = helpers.back()->Install(collectives, endpoints, 0, &out.error);
        }
        if (!job)
        {
            Simulator::Destroy();
            tn_topology_destroy(topo);
            return out;
        }
        jobs.push_back(job);
        job->Start();
    }
    Simulator::Run();
    for (const Ptr<TrainingJob>& job : jobs)
    {
        const auto& log = job->GetIterations(0);
        out.iterationNs.push_back(job->IsComplete() && !log.empty()
                                      ? double((log[0].end - log[0].start).GetNanoSeconds())
                                      : -1);
    }
    for (const auto& c : collectives.GetCollectives())
    {
        bool one = false;
        for (const std::vector<uint32_t>& list : npus)
        {
            bool same = c->GetRanks() == list.size();
            for (uint32_t r = 0; same && r < list.size(); r++)
            {
                same = c->GetNode(r) == tn_topology_npu_node(topo, list[r]);
            }
            one = one || same;
        }
        out.groupsOwn = out.groupsOwn && one;
    }
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return out;
}

/**
 * \ingroup training-net-tests
 * Jobs on some NPUs (TrainingHelper::SetNpus): two all-reduce jobs on the two halves of one
 * switch (each NPU its own cable both ways) plan every collective over their own NPUs, in
 * their rank order, and each takes exactly as long together as alone; an NPU the system does
 * not have or one listed twice is refused at Install, naming it.
 */
class TrainingJobsTestCase : public TnDataTestCase
{
  public:
    TrainingJobsTestCase()
        : TnDataTestCase("training: jobs on some NPUs, side by side")
    {
    }

  private:
    void DoRun() override
    {
        const std::string file = DataFile("workloads/microAllReduce.txt");
        const std::vector<uint32_t> a{6, 2, 4, 0};
        const std::vector<uint32_t> b{1, 3, 5, 7};
        JobsRun both = RunJobs(file, {a, b});
        NS_TEST_ASSERT_MSG_EQ(both.error, "", "ran");
        NS_TEST_ASSERT_MSG_EQ(both.iterationNs.size(), 2u, "two jobs");
        NS_TEST_EXPECT_MSG_EQ(both.groupsOwn, true, "each collective on its job's NPUs");
        JobsRun aloneA = RunJobs(file, {a});
        JobsRun aloneB = RunJobs(file, {b});
        NS_TEST_ASSERT_MSG_EQ(aloneA.iterationNs.size() + aloneB.iterationNs.size(), 2u, "alone");
        NS_TEST_EXPECT_MSG_GT(both.iterationNs[0], 0, "job a complete");
        NS_TEST_EXPECT_MSG_EQ(both.iterationNs[0], aloneA.iterationNs[0], "a as alone");
        NS_TEST_EXPECT_MSG_EQ(both.iterationNs[1], aloneB.iterationNs[0], "b as alone");
        // the ring's bandwidth bound: 2 (N-1)/N of 1 MiB through one cable
        NS_TEST_EXPECT_MSG_GT(both.iterationNs[0],
                              2.0 * 3 / 4 * 1048576 * 8 / both.rateBps * 1e9,
                              "bound");
        JobsRun beyond = RunJobs(file, {{0, 8}});
        NS_TEST_EXPECT_MSG_EQ(beyond.error, "npus: NPU 8 is not an NPU of the system", "8");
        JobsRun twice = RunJobs(file, {{3, 3}});
        NS_TEST_EXPECT_MSG_EQ(twice.error, "npus: NPU 3 is listed twice", "twice");
    }
};

/**
 * \ingroup training-net-tests
 * The results database records a training job: one iteration row per NPU and iteration,
 * whose times are the job's own records.
 */
class TrainingDatabaseTestCase : public TnDataTestCase
{
  public:
    TrainingDatabaseTestCase()
        : TnDataTestCase("training iterations in the results database")
    {
    }

  private:
    void DoRun() override
    {
        const std::string path = CreateTempDirFilename("training.db");
        tn_error err;
        tn_topology* topo = nullptr;
        NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec("switch:4", &topo, &err), TN_OK, "topology");
        RoceHelper roce;
        roce.Install(topo);
        CollectiveHelper collectives;
        collectives.Install(topo, roce);
        NpuHelper npus;
        npus.Install(roce.GetFabric().npus);
        StatsHelper stats;
        std::string error;
        Ptr<StatsRecorder> recorder = stats.Install(path, "training", "{}", topo, roce, &error);
        NS_TEST_ASSERT_MSG_NE(recorder, nullptr, error);
        TrainingHelper training;
        // pinned: the figures checked here are the flat ring's (a job's default is auto)
        training.SetAlgorithms("ring");
        training.SetJobAttribute("Iterations", UintegerValue(2));
        NS_TEST_ASSERT_MSG_EQ(training.Load(DataFile("workloads/microAllReduce.txt"), &error),
                              true,
                              error);
        Ptr<TrainingJob> job = training.Install(collectives, npus, 0, &error);
        NS_TEST_ASSERT_MSG_NE(job, nullptr, error);
        stats.AddTrainingJob(job);
        job->Start();
        Simulator::Run();
        stats.Finish("ok", Simulator::Now().GetNanoSeconds());
        const TrainingIterationRecord last = job->GetIterations(0).back();
        tn_workload* wl = nullptr;
        NS_TEST_ASSERT_MSG_EQ(
            tn_workload_load_file(DataFile("workloads/microAllReduce.txt").c_str(), &wl, &err),
            TN_OK,
            "workload");
        const int64_t layers = tn_workload_layer_count(wl);
        tn_workload_destroy(wl);
        Simulator::Destroy();
        tn_topology_destroy(topo);

        sqlite3* db = nullptr;
        NS_TEST_ASSERT_MSG_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
                              SQLITE_OK,
                              "open " << path);
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db,
                           "SELECT count(*), sum(iteration = 1 AND node_id = ? AND end_ns = ? "
                           "AND compute_ns = ? AND exposed_comm_ns = ?) FROM iteration",
                           -1,
                           &st,
                           nullptr);
        sqlite3_bind_int64(st, 1, last.node);
        sqlite3_bind_int64(st, 2, last.end.GetNanoSeconds());
        sqlite3_bind_int64(st, 3, last.compute.GetNanoSeconds());
        sqlite3_bind_int64(st, 4, last.exposed.GetNanoSeconds());
        NS_TEST_EXPECT_MSG_EQ(sqlite3_step(st), SQLITE_ROW, "query");
        NS_TEST_EXPECT_MSG_EQ(sqlite3_column_int64(st, 0), 8, "4 NPUs x 2 iterations");
        NS_TEST_EXPECT_MSG_EQ(sqlite3_column_int64(st, 1), 1, "NPU 0's last iteration as recorded");
        sqlite3_finalize(st);
        // layer rows: every pass of every layer, and per NPU they add up to its iterations
        sqlite3_prepare_v2(
            db,
            "SELECT (SELECT count(*) FROM layer),"
            " (SELECT count(*) FROM (SELECT node_id, sum(compute_ns) AS c, sum(exposed_comm_ns)"
            "  AS e FROM layer GROUP BY node_id) l JOIN (SELECT node_id, sum(compute_ns) AS c,"
            "  sum(exposed_comm_ns) AS e FROM iteration GROUP BY node_id) i USING (node_id)"
            "  WHERE l.c = i.c AND l.e = i.e),"
            " (SELECT count(*) FROM layer WHERE end_ns < start_ns OR phase NOT IN"
            "  ('fwd', 'ig', 'wg'))",
            -1,
            &st,
            nullptr);
        NS_TEST_EXPECT_MSG_EQ(sqlite3_step(st), SQLITE_ROW, "layer query");
        NS_TEST_EXPECT_MSG_EQ(sqlite3_column_int64(st, 0),
                              4 * 2 * 3 * layers,
                              "4 NPUs x 2 iterations x 3 passes x layers");
        NS_TEST_EXPECT_MSG_EQ(sqlite3_column_int64(st, 1), 4, "layers add up at every NPU");
        NS_TEST_EXPECT_MSG_EQ(sqlite3_column_int64(st, 2), 0, "well-formed rows");
        sqlite3_finalize(st);
        sqlite3_close(db);
    }
};

/**
 * \ingroup training-net-tests
 * The training test suite.
 */
class TrainingTestSuite : public TestSuite
{
  public:
    TrainingTestSuite()
        : TestSuite("training-net-training", UNIT)
    {
        AddTestCase(new TrainingClosedFormTestCase, TestCase::QUICK);
        AddTestCase(new TrainingRecomputeTestCase, TestCase::QUICK);
        AddTestCase(new TrainingIdsTestCase, TestCase::QUICK);
        AddTestCase(new TrainingLayerRecordsTestCase, TestCase::QUICK);
        AddTestCase(new TrainingAceTestCase, TestCase::QUICK);
        AddTestCase(new TrainingRefusalTestCase, TestCase::QUICK);
        AddTestCase(new TrainingWorkloadsTestCase, TestCase::QUICK);
        AddTestCase(new TrainingDatabaseTestCase, TestCase::QUICK);
        AddTestCase(new TrainingThemisTestCase, TestCase::QUICK);
        AddTestCase(new TrainingJobsTestCase, TestCase::QUICK);
    }
};

/// The suite's instance.
static TrainingTestSuite g_trainingTestSuite;

} // namespace ns3
