/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Generated transformer training (tn-llm.h) run by a training job: with the network off, an
 * iteration equals its schedule's closed form (Narayanan et al., SC'21): 1F1B and GPipe
 * (m + p - 1)(t_f + t_b), the interleaved schedule's bubble (p - 1)/(v m) of the ideal time;
 * with it on, at packet and flow level, every NPU's time splits into compute, bubble and
 * exposed TP, PP, DP and EP communication.
 */
#include "ns3/boolean.h"
#include "ns3/collective-helper.h"
#include "ns3/npu-helper.h"
#include "ns3/roce-helper.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/tn-llm.h"
#include "ns3/training-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/** A compute-bound GPT: h 1024, s 1024 (every kernel above the H100's ridge point). */
const char* GPT_SMALL = "name = \"gpt-small\"\nlayers = 8\nhidden = 1024\nffn_hidden = 4096\n"
                        "heads = 16\nseq_len = 1024\nvocab = 0\n";
const char* H100 = "name = \"h100\"\ntflops_bf16 = 989\nmemory_gbps = 3350\n"
                   "flops_efficiency = 0.5\nmemory_efficiency = 0.8\n";

/** What one run gave: per rank, its first iteration. */
struct LlmRun
{
    std::string error;
    bool complete{false};
    std::vector<TrainingIterationRecord> iteration;
    std::vector<std::vector<TrainingLayerRecord>> steps;         //!< per rank, its schedule steps
    std::vector<std::pair<std::string, std::string>> algorithms; //!< (parallelism, algorithm)
};

/** The CollectiveCreated trace's collectives: which parallelism, which algorithm. */
void
KeepAlgorithm(LlmRun* run, Ptr<Collective> c)
{
    run->algorithms.emplace_back(c->GetParallelism(), c->GetAlgorithm());
}

/** The LayerEnd trace's records of schedule steps, per rank. */
void
KeepStep(LlmRun* run, const TrainingLayerRecord& r)
{
    run->steps.resize(std::max<size_t>(run->steps.size(), r.rank + 1));
    run->steps[r.rank].push_back(r);
}

/** The descriptions of a test, GPT_SMALL on H100 by default. */
struct LlmSetup
{
    tn_llm_model model;
    tn_llm_gpu gpu;
    tn_llm_training training;
    tn_llm_layout layout;

    LlmSetup()
    {
        tn_error err;
        tn_llm_model_parse(GPT_SMALL, "gpt-small", &model, &err);
        tn_llm_gpu_parse(H100, "h100", &gpu, &err);
        tn_llm_training_init(&training);
        tn_llm_layout_init(&layout);
    }
};

LlmRun
RunLlm(
    const LlmSetup& setup,
    const std::string& spec,
    const std::string& mode,
    bool network,
    uint32_t period = 1,
    std::function<void(TrainingHelper&)> algorithms = [](TrainingHelper& training) {
        // pinned: the figures checked here are the flat ring's (a job's default is auto)
        training.SetAlgorithms("ring");
    })
{
    LlmRun out;
    tn_error err;
    tn_topology* topo = nullptr;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        out.error = err.message;
        return out;
    }
    RoceHelper roce;
    roce.SetMode(mode);
    roce.SetSymmetricPeriod(period);
    out.error = roce.Check(topo);
    if (!out.error.empty())
    {
        tn_topology_destroy(topo);
        return out;
    }
    roce.Install(topo);
    CollectiveHelper collectives;
    collectives.Install(topo, roce);
    NpuHelper npus;
    npus.Install(roce.GetFabric().npus);
    TrainingHelper training;
    algorithms(training);
    training.SetJobAttribute("Network", BooleanValue(network));
    training.LoadLlm(setup.model, setup.gpu, setup.training, setup.layout);
    Ptr<TrainingJob> job = training.Install(collectives, npus, 0, &out.error);
    if (job)
    {
        job->TraceConnectWithoutContext("LayerEnd", MakeBoundCallback(&KeepStep, &out));
        job->TraceConnectWithoutContext("CollectiveCreated",
                                        MakeBoundCallback(&KeepAlgorithm, &out));
        job->Start();
        Simulator::Run();
        out.complete = job->IsComplete();
        for (uint32_t r = 0; r < npus.GetEndpoints().size(); r++)
        {
            const auto& log = job->GetIterations(r);
            out.iteration.push_back(log.empty() ? TrainingIterationRecord() : log[0]);
        }
    }
    Simulator::Destroy();
    tn_topology_destroy(topo);
    return out;
}

/** The forward of one layer of GPT_SMALL for one micro-batch, in ns at the H100's rate. */
double
LayerForwardNs(const LlmSetup& s)
{
    const double b = s.training.micro_batch;
    const double seq = s.model.seq_len;
    const double h = s.model.hidden;
    const double flops = 24 * b * seq * h * h + 4 * b * seq * seq * h;
    return flops / (989e12 * 0.5) * 1e9;
}

/** The optimizer step of a stage of `layers` layers (no TP, no distributed optimizer). */
double
OptimizerNs(const LlmSetup& s, uint32_t layers)
{
    const double params = layers * 12.0 * s.model.hidden * s.model.hidden;
    return params * TN_LLM_OPTIMIZER_BYTES_PER_PARAM / (3350e9 * 0.8) * 1e9;
}

/**
 * With the network off, every stage's iteration is the schedule's closed form:
 * (m + p - 1)(t_f + t_b) for 1F1B and GPipe, (m + (p - 1) / v)(t_f + t_b) interleaved, with
 * t_f and t_b a stage's forward and backward of one micro-batch (t_b = 2 t_f), plus the
 * optimizer step.
 */
class LlmScheduleTestCase : public TestCase
{
  public:
    LlmScheduleTestCase(tn_llm_schedule schedule, uint32_t vpp)
        : TestCase(std::string("closed form of the ") +
                   (schedule == TN_LLM_SCHEDULE_GPIPE ? "gpipe"
                    : vpp > 1                         ? "interleaved"
                                                      : "1f1b") +
                   " schedule, network off"),
          m_schedule(schedule),
          m_vpp(vpp)
    {
    }

  private:
    void DoRun() override
    {
        LlmSetup s;
        const uint32_t p = 4;
        const uint32_t m = 8;
        s.layout.size[TN_LLM_DIM_PP] = p;
        s.layout.vpp = m_vpp;
        s.layout.schedule = m_schedule;
        s.training.global_batch = m;
        LlmRun run = RunLlm(s, "switch:4", "flow", false);
        NS_TEST_ASSERT_MSG_EQ(run.error, "", "set up");
        NS_TEST_ASSERT_MSG_EQ(run.complete, true, "every stage ended its iteration");
        if (!run.complete)
        {
            return; // the runner goes on after a failed assertion: nothing to read
        }
        const uint32_t layers = s.model.layers / p;
        const double stage = 3 * layers * LayerForwardNs(s);            // t_f + t_b of a stage
        const double backward = 2 * layers * LayerForwardNs(s) / m_vpp; // t_b of a chunk
        const double bubble = double(p - 1) / m_vpp * stage;
        const double want = m * stage + bubble + OptimizerNs(s, layers);
        Time end;
        for (uint32_t r = 0; r < p; r++)
        {
            // stage r's last backward (of chunk 0) precedes stage 0's by r chunk backwards
            const TrainingIterationRecord& it = run.iteration[r];
            const double got = (it.end - it.start).GetNanoSeconds();
            const double stageWant = want - r * backward;
            NS_TEST_EXPECT_MSG_EQ_TOL(got / stageWant,
                                      1.0,
                                      1e-3,
                                      "stage " << r << ": " << got << " ns, closed form "
                                               << stageWant << " ns");
            // the idle time is the bubble, and nothing else (no network)
            NS_TEST_EXPECT_MSG_EQ_TOL(it.bubble.GetNanoSeconds() / (bubble - r * backward),
                                      1.0,
                                      1e-3,
                                      "stage " << r << "'s bubble");
            NS_TEST_EXPECT_MSG_EQ(it.bubble, it.exposed, "stage " << r << ": only bubble waits");
            end = std::max(end, it.end);
        }
        // the schedule's steps, in order: stage 0 of 1F1B runs p - 1 forwards, then alternates
        if (m_schedule == TN_LLM_SCHEDULE_1F1B && m_vpp == 1)
        {
            NS_TEST_ASSERT_MSG_EQ(run.steps.size(), p, "steps recorded at every stage");
            std::string order;
            for (const TrainingLayerRecord& st : run.steps[0])
            {
                order += st.phase == "forward" ? "F" : "B";
                const double want = (st.phase == "forward" ? 1 : 2) * layers * LayerForwardNs(s);
                NS_TEST_EXPECT_MSG_EQ_TOL(st.compute.GetNanoSeconds() / want,
                                          1.0,
                                          1e-3,
                                          "step " << st.name << "'s kernels");
            }
            NS_TEST_EXPECT_MSG_EQ(order, "FFFFBFBFBFBFBBBB", "stage 0's steps");
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(end.GetNanoSeconds() / want,
                                  1.0,
                                  1e-3,
                                  "the iteration: " << end.GetNanoSeconds() << " ns, closed form "
                                                    << want << " ns");
    }

    tn_llm_schedule m_schedule;
    uint32_t m_vpp;
};

/**
 * With the network on, every NPU's iteration is its compute plus its waits, and the waits
 * split into bubble and exposed TP, PP and DP communication; the stages that wait for the
 * pipeline have a bubble, and TP and DP waits are there.
 */
class LlmBreakdownTestCase : public TestCase
{
  public:
    explicit LlmBreakdownTestCase(const std::string& mode)
        : TestCase("TP 2 x PP 2 x DP 2 at " + mode +
                   " level: compute, bubble and exposed "
                   "communication per parallelism"),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        LlmSetup s;
        s.model.layers = 4;
        s.model.seq_len = 256;
        s.layout.size[TN_LLM_DIM_TP] = 2;
        s.layout.size[TN_LLM_DIM_PP] = 2;
        s.layout.size[TN_LLM_DIM_DP] = 2;
        s.training.global_batch = 8; // 4 micro-batches per replica
        LlmRun run = RunLlm(s, "switch:8,rate=100Gbps", m_mode, true);
        NS_TEST_ASSERT_MSG_EQ(run.error, "", "set up");
        NS_TEST_ASSERT_MSG_EQ(run.complete, true, "every NPU ended its iteration");
        if (!run.complete)
        {
            return; // the runner goes on after a failed assertion: nothing to read
        }
        for (uint32_t r = 0; r < 8; r++)
        {
            const TrainingIterationRecord& it = run.iteration[r];
            const int64_t total = (it.end - it.start).GetNanoSeconds();
            NS_TEST_EXPECT_MSG_EQ_TOL(
                double(it.compute.GetNanoSeconds() + it.exposed.GetNanoSeconds()),
                double(total),
                double(total) * 1e-6 + 8,
                "rank " << r << ": compute + exposed");
            Time parts = it.bubble;
            for (int k = 0; k < TN_SERVES_COUNT; k++)
            {
                parts += it.exposedBy[k];
            }
            NS_TEST_EXPECT_MSG_EQ(parts, it.exposed, "rank " << r << ": the parts of exposed");
            NS_TEST_EXPECT_MSG_EQ(it.exposedBy[TN_SERVES_NONE], Time(0), "rank " << r);
            NS_TEST_EXPECT_MSG_GT(it.exposedBy[TN_SERVES_TP], Time(0), "rank " << r << ": TP");
            NS_TEST_EXPECT_MSG_GT(it.exposedBy[TN_SERVES_DP], Time(0), "rank " << r << ": DP");
            NS_TEST_EXPECT_MSG_EQ(it.exposedBy[TN_SERVES_EP], Time(0), "rank " << r << ": no EP");
            // rank order tp, ep, dp, pp: ranks 0-3 are stage 0, which waits for gradients
            if (r < 4)
            {
                NS_TEST_EXPECT_MSG_GT(it.bubble, Time(0), "rank " << r << ": stage 0's bubble");
            }
        }
    }

    std::string m_mode;
};

/**
 * Which algorithm each parallelism's collectives run: data-parallel ones as rings unless the
 * kind or the parallelism is set (TrainingJob::GetParallelismAlgorithm); TP's by the kind's
 * setting (auto by default).
 */
class LlmParallelismAlgorithmTestCase : public TestCase
{
  public:
    LlmParallelismAlgorithmTestCase()
        : TestCase("data-parallel collectives run as rings unless set; a parallelism's "
                   "algorithm wins over its kind's")
    {
    }

  private:
    /** the algorithms the collectives serving `parallelism` ran with, without repeats */
    static std::set<std::string> Of(const LlmRun& run, const std::string& parallelism)
    {
        std::set<std::string> out;
        for (const auto& [serves, algorithm] : run.algorithms)
        {
            if (serves == parallelism)
            {
                out.insert(algorithm);
            }
        }
        return out;
    }

    void DoRun() override
    {
        LlmSetup s;
        s.model.layers = 2;
        s.model.seq_len = 256;
        s.layout.size[TN_LLM_DIM_TP] = 2;
        s.layout.size[TN_LLM_DIM_DP] = 4;
        s.training.global_batch = 4;
        const std::string spec = "switch:8,rate=100Gbps";
        using Set = std::set<std::string>;

        struct Case
        {
            std::string what;
            std::function<void(TrainingHelper&)> configure;
            Set dp;
            Set tp; // empty: not checked (auto's choice)
        };

        const std::vector<Case> cases = {
            {"defaults", [](TrainingHelper&) {}, Set{"ring"}, Set{}},
            {"the all-reduce's algorithm set",
             [](TrainingHelper& t) { t.SetAlgorithm(TN_COLL_ALL_REDUCE, "direct"); },
             Set{"direct"},
             Set{}},
            {"every kind set, DP's too",
             [](TrainingHelper& t) {
                 t.SetAlgorithms("direct");
                 t.SetParallelismAlgorithm(TN_SERVES_DP, "ring");
             },
             Set{"ring"},
             Set{"direct"}},
            {"DP's set alone",
             [](TrainingHelper& t) { t.SetParallelismAlgorithm(TN_SERVES_DP, "direct"); },
             Set{"direct"},
             Set{}},
        };
        for (const Case& c : cases)
        {
            LlmRun run = RunLlm(s, spec, "flow", true, 1, c.configure);
            NS_TEST_ASSERT_MSG_EQ(run.error, "", c.what);
            NS_TEST_EXPECT_MSG_EQ(run.complete, true, c.what);
            NS_TEST_EXPECT_MSG_EQ((Of(run, "dp") == c.dp), true, c.what << ": DP's algorithms");
            NS_TEST_EXPECT_MSG_EQ(Of(run, "tp").empty(), false, c.what << ": TP collectives");
            if (!c.tp.empty())
            {
                NS_TEST_EXPECT_MSG_EQ((Of(run, "tp") == c.tp), true, c.what << ": TP's");
            }
        }
    }
};

/** A bad combination is refused by Install, naming the key. */
class LlmRefusalTestCase : public TestCase
{
  public:
    LlmRefusalTestCase()
        : TestCase("a layout that does not fit the NPUs is refused naming the key")
    {
    }

  private:
    void DoRun() override
    {
        LlmSetup s;
        s.layout.size[TN_LLM_DIM_TP] = 2;
        s.training.global_batch = 4;
        LlmRun run = RunLlm(s, "switch:4", "flow", true);
        NS_TEST_EXPECT_MSG_EQ(run.error,
                              "tp: tp 2 x pp 1 x dp 1 x ep 1 = 2 ranks, but the system has 4 NPUs",
                              "refusal");
        s.layout.size[TN_LLM_DIM_DP] = 2;
        s.layout.size[TN_LLM_DIM_PP] = 3;
        run = RunLlm(s, "switch:12", "flow", true);
        NS_TEST_EXPECT_MSG_EQ(run.error,
                              "pp: 8 layers are not divisible by pp 3 x vpp 1",
                              "refusal");
    }
};

/**
 * Data parallelism outermost: the first replica runs for all at flow-symmetric level (period
 * = its NPUs) and ends every one of its ranks' iterations at the ns of the flow level with
 * every NPU simulated, with the same compute, bubble and exposed parts; dense with TP and SP,
 * and MoE with EP. Megatron's order and a period that is not a replica are refused.
 */
class LlmSymmetricTestCase : public TestCase
{
  public:
    LlmSymmetricTestCase()
        : TestCase("flow-symmetric: one data-parallel replica runs for all, to the ns of flow")
    {
    }

  private:
    void DoRun() override
    {
        const std::string spec = "hier:switch2@800Gbps/1us+switch8@100Gbps/2us";
        for (bool moe : {false, true})
        {
            // MoE: EP across servers, so that the dense parameters' DP group (ep x dp) keeps
            // to one rail (a path through both switch levels has two orders: ECMP's choice
            // is not translated)
            LlmSetup s;
            s.model.layers = 4;
            s.model.seq_len = 256;
            s.layout.size[TN_LLM_DIM_TP] = 2;
            s.layout.size[TN_LLM_DIM_PP] = 2;
            s.layout.size[TN_LLM_DIM_EP] = moe ? 2 : 1;
            s.layout.size[TN_LLM_DIM_DP] = moe ? 2 : 4;
            s.layout.sequence_parallel = true;
            s.training.distributed_optimizer = true;
            if (moe)
            {
                s.model.experts = 4;
                s.model.top_k = 2;
                s.model.expert_ffn_hidden = 1024;
                s.model.moe_layer_interval = 1;
            }
            // 4 micro-batches per replica
            s.training.global_batch =
                4 * s.layout.size[TN_LLM_DIM_DP] * s.layout.size[TN_LLM_DIM_EP];
            const uint32_t period = moe ? 8 : 4;
            tn_error err;
            NS_TEST_ASSERT_MSG_EQ(
                tn_llm_parse_order(moe ? "tp,pp,ep,dp" : "tp,ep,pp,dp", s.layout.order, &err),
                TN_OK,
                "order");
            const LlmRun all = RunLlm(s, spec, "flow", true);
            const LlmRun one = RunLlm(s, spec, "flow-symmetric", true, period);
            NS_TEST_ASSERT_MSG_EQ(all.error, "", "flow");
            NS_TEST_ASSERT_MSG_EQ(one.error, "", "flow-symmetric");
            NS_TEST_ASSERT_MSG_EQ(one.complete && all.complete, true, "complete");
            if (!one.complete || !all.complete)
            {
                return;
            }
            for (uint32_t r = 0; r < 16; r++)
            {
                const TrainingIterationRecord& a = all.iteration[r];
                const TrainingIterationRecord& b = one.iteration[r];
                if (r >= period)
                {
                    NS_TEST_EXPECT_MSG_EQ(b.end, Time(0), "rank " << r << " is stood for");
                    continue;
                }
                NS_TEST_EXPECT_MSG_GT(a.end, Time(0), "rank " << r << " ran");
                NS_TEST_EXPECT_MSG_EQ(b.end - b.start, a.end - a.start, "rank " << r);
                NS_TEST_EXPECT_MSG_EQ(b.compute, a.compute, "rank " << r);
                NS_TEST_EXPECT_MSG_EQ(b.bubble, a.bubble, "rank " << r);
                for (int k = 0; k < TN_SERVES_COUNT; k++)
                {
                    NS_TEST_EXPECT_MSG_EQ(b.exposedBy[k], a.exposedBy[k], "rank " << r << " " << k);
                }
                NS_TEST_EXPECT_MSG_GT(a.exposedBy[TN_SERVES_DP], Time(0), "rank " << r << ": DP");
            }
            // Megatron's order (dp inside pp): replicas are not translates
            LlmSetup megatron = s;
            NS_TEST_ASSERT_MSG_EQ(tn_llm_parse_order("tp,ep,dp,pp", megatron.layout.order, &err),
                                  TN_OK,
                                  "order");
            NS_TEST_EXPECT_MSG_EQ(
                RunLlm(megatron, spec, "flow-symmetric", true, period)
                    .error.find("order: mode flow-symmetric runs one data-parallel"),
                0,
                "Megatron's order");
            NS_TEST_EXPECT_MSG_EQ(
                RunLlm(s, spec, "flow-symmetric", true, period / 2).error.find("mode: "),
                0,
                "a period of half a replica");
            NS_TEST_EXPECT_MSG_NE(RunLlm(s, spec, "flow-symmetric", true, 3).error.find("period 3"),
                                  std::string::npos,
                                  "a period the topology has not");
            // however the period comes, Check refuses it before the fabric is built
            tn_topology* topo = nullptr;
            NS_TEST_ASSERT_MSG_EQ(tn_topology_from_spec(spec.c_str(), &topo, &err), TN_OK, spec);
            RoceHelper byAttribute;
            byAttribute.SetMode(RoceHelper::FLOW_SYMMETRIC);
            byAttribute.SetFlowNetworkAttribute("SymmetricPeriod", UintegerValue(3));
            NS_TEST_EXPECT_MSG_NE(byAttribute.Check(topo).find("period 3"),
                                  std::string::npos,
                                  "FlowNetwork::SymmetricPeriod given as an attribute");
            tn_topology_destroy(topo);
        }
    }
};

class LlmTestSuite : public TestSuite
{
  public:
    LlmTestSuite()
        : TestSuite("training-net-llm", UNIT)
    {
        AddTestCase(new LlmScheduleTestCase(TN_LLM_SCHEDULE_1F1B, 1), TestCase::QUICK);
        AddTestCase(new LlmScheduleTestCase(TN_LLM_SCHEDULE_1F1B, 2), TestCase::QUICK);
        AddTestCase(new LlmScheduleTestCase(TN_LLM_SCHEDULE_GPIPE, 1), TestCase::QUICK);
        AddTestCase(new LlmBreakdownTestCase("flow"), TestCase::QUICK);
        AddTestCase(new LlmBreakdownTestCase("packet"), TestCase::QUICK);
        AddTestCase(new LlmRefusalTestCase, TestCase::QUICK);
        AddTestCase(new LlmParallelismAlgorithmTestCase, TestCase::QUICK);
        AddTestCase(new LlmSymmetricTestCase, TestCase::QUICK);
    }
};

/// The suite's instance.
static LlmTestSuite g_llmTestSuite;

} // namespace

} // namespace ns3
