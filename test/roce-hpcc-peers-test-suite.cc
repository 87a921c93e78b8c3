/*
 * Copyright (c) 2026 training-net authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The HPCC family's own simulators beside ours (issue 43): RoceSwitchMmu::Layout against the
// members' buffer rules re-stated from their switch-mmu.cc, and roce-hpcc-flows --family on
// issue 43's four DCQCN cases and issue 45's controls and cc-comparison set-ups against the
// members' stored fct.txt (test/data/hpcc-peers, its README says how they were made). One suite
// per case or control, so that each is its own ctest.

#include "tn-test-data.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/roce-header.h"
#include "ns3/roce-hpcc-config.h"
#include "ns3/roce-hpcc-flows.h"
#include "ns3/roce-switch-mmu.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// Ports, rate, delay and buffer of the incast switch of test/data (9 ports at 100 Gb/s, 1 us,
/// BUFFER_SIZE 4).
constexpr uint32_t PORTS = 9;
constexpr uint64_t RATE = 100000000000ULL;
constexpr uint64_t BUFFER = 4ULL * 1024 * 1024;
/// The family's headroom of such a port: whole bytes of rate x delay, times 3.
constexpr uint64_t FAMILY_HEADROOM = RATE * 1000 / 8 / 1000000000 * 3;

/// One lossless class of one ingress port as a member's switch accounts it.
struct RefQueue
{
    uint64_t ingress{0}; //!< bytes outside the headroom (reserve + shared)
    uint64_t hdrm{0};    //!< headroom bytes
};

/**
 * alibaba-edu's SwitchMmu (simulation/src/point-to-point/model/switch-mmu.cc) as its third.cc
 * sets it up, re-stated: reserve 4096 and resume offset 3072; one reserve and one headroom
 * pre-allocated per port; T = (buffer - headrooms - reserves - shared) >> 3.
 */
struct HpccRef
{
    std::vector<RefQueue> q = std::vector<RefQueue>(PORTS); //!< priority 3 of each port
    uint64_t sharedUsed{0};                                 //!< shared_used_bytes

    /// \return its PFC threshold
    uint64_t Threshold() const
    {
        return (BUFFER - PORTS * FAMILY_HEADROOM - PORTS * 4096 - sharedUsed) >> 3;
    }

    /// \param p port \return shared bytes of the port's class
    uint64_t Shared(uint32_t p) const
    {
        return q[p].ingress > 4096 ? q[p].ingress - 4096 : 0;
    }

    /// \param p port \param size bytes \return admitted (UpdateIngressAdmission)
    bool Admit(uint32_t p, uint64_t size)
    {
        if (size + q[p].hdrm > FAMILY_HEADROOM && size + Shared(p) > Threshold())
        {
            return false;
        }
        const uint64_t next = q[p].ingress + size;
        if (next <= 4096)
        {
            q[p].ingress += size;
        }
        else if (next - 4096 > Threshold())
        {
            q[p].hdrm += size;
        }
        else
        {
            q[p].ingress += size;
            sharedUsed += std::min(size, next - 4096);
        }
        return true;
    }

    /// \param p port \param size bytes (RemoveFromIngressAdmission)
    void Release(uint32_t p, uint64_t size)
    {
        const uint64_t fromHdrm = std::min(q[p].hdrm, size);
        const uint64_t fromShared = std::min(size - fromHdrm, Shared(p));
        q[p].hdrm -= fromHdrm;
        q[p].ingress -= size - fromHdrm;
        sharedUsed -= fromShared;
    }

    /// \param p port \return CheckShouldPause (unpaused)
    bool Pause(uint32_t p) const
    {
        return q[p].hdrm > 0 || Shared(p) >= Threshold();
    }

    /// \param p port \return CheckShouldResume (paused)
    bool Resume(uint32_t p) const
    {
        return q[p].hdrm == 0 && (Shared(p) == 0 || Shared(p) + 3072 <= Threshold());
    }
};

/**
 * inet-tub's SwitchMmu (simulator/ns-3.39/src/point-to-point/model/switch-mmu.cc, "sonic"
 * model, dynamic threshold) as its PowerTCP examples set it up, re-stated: no reserve; a
 * headroom per port and priority (8) pre-allocated; T = 1/8 x (buffer - headrooms - shared);
 * a class goes to its headroom once its bytes pass T and stays there until that drains.
 */
struct Ns3dcRef
{
    std::vector<RefQueue> q = std::vector<RefQueue>(PORTS); //!< priority 3 of each port
    uint64_t shared{0};                                     //!< totalUsed - xoffTotalUsed

    /// \return its dynamic threshold
    uint64_t Threshold() const
    {
        const uint64_t pool = BUFFER - PORTS * 8 * FAMILY_HEADROOM;
        return pool > shared ? static_cast<uint64_t>(0.125 * double(pool - shared)) : 0;
    }

    /// \param p port \param size bytes \return admitted (UpdateIngressAdmission)
    bool Admit(uint32_t p, uint64_t size)
    {
        if (q[p].hdrm > 0 && size + q[p].hdrm > FAMILY_HEADROOM)
        {
            return false;
        }
        shared += size;
        if (q[p].hdrm > 0 || q[p].ingress + size > Threshold())
        {
            shared -= size;
            q[p].hdrm += size;
        }
        else
        {
            q[p].ingress += size;
        }
        return true;
    }

    /// \param p port \param size bytes (RemoveFromIngressAdmission)
    void Release(uint32_t p, uint64_t size)
    {
        const uint64_t fromHdrm = std::min(q[p].hdrm, size);
        q[p].hdrm -= fromHdrm;
        q[p].ingress -= size - fromHdrm;
        shared -= size - fromHdrm;
    }

    /// \param p port \return CheckShouldPause (unpaused)
    bool Pause(uint32_t p) const
    {
        return q[p].hdrm > 0;
    }

    /// \param p port \return CheckShouldResume (paused)
    bool Resume(uint32_t p) const
    {
        return q[p].hdrm == 0 && (q[p].ingress < 1248 || q[p].ingress + 2496 <= Threshold());
    }
};

/**
 * \ingroup training-net-tests
 * RoceSwitchMmu with Layout hpcc and ns3-datacenter against the member's own rules (above) on
 * the incast switch of test/data: 8 ports fill one class each, in an order and with releases
 * drawn from a fixed generator (a paused class still takes 20 frames in flight), and after
 * every step the admission, the headroom bytes, the
 * threshold and the PAUSE and RESUME decisions must be the member's. The layout's headroom,
 * reserves and threshold are also checked against their closed forms.
 */
template <typename Ref>
class RoceMmuLayoutTestCase : public TestCase
{
  public:
    /// \param layout the Layout value \param name member
    RoceMmuLayoutTestCase(const std::string& layout, const std::string& name)
        : TestCase("RoceSwitchMmu Layout " + layout + ": the rules of " + name),
          m_layout(layout)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<RoceSwitchMmu> mmu = CreateObject<RoceSwitchMmu>();
        mmu->SetAttribute("Layout", StringValue(m_layout));
        mmu->SetAttribute("BufferSize", UintegerValue(BUFFER));
        mmu->SetAttribute("Mtu", UintegerValue(1000));
        const uint8_t lossless = 1 << 3;
        for (uint32_t p = 0; p < PORTS; ++p)
        {
            mmu->AddPort(DataRate(RATE), MicroSeconds(1), lossless);
        }
        Ref ref;
        NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomSize(0), FAMILY_HEADROOM, "3 x rate x delay");
        NS_TEST_EXPECT_MSG_EQ(mmu->GetThreshold(), ref.Threshold(), "the empty buffer's T");
        uint64_t lcg = 12345;
        auto next = [&lcg](uint64_t n) {
            lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
            return (lcg >> 33) % n;
        };
        const uint32_t frame = 1048; // the family's 1000-byte payload and 48 header bytes
        std::vector<uint64_t> queued(PORTS, 0);
        std::vector<bool> paused(PORTS, false);
        std::vector<uint32_t> inFlight(PORTS, 0);
        uint32_t pauses = 0;
        uint32_t resumes = 0;
        uint32_t headroomPackets = 0;
        for (uint32_t step = 0; step < 40000; ++step)
        {
            // 8 senders into port 8: arrivals outpace the drain, so the classes reach T
            // a paused class still takes the frames in flight (the headroom's reason)
            const uint32_t p = next(8);
            const bool arrive = (!paused[p] || inFlight[p] > 0) && next(10) < 6;
            inFlight[p] -= arrive && paused[p] ? 1 : 0;
            if (arrive)
            {
                const char* reason = nullptr;
                const bool ours = mmu->Admit(p, 3, frame, &reason);
                const bool theirs = ref.Admit(p, frame);
                NS_TEST_ASSERT_MSG_EQ(ours, theirs, "admission at step " << step);
                queued[p] += ours ? frame : 0;
            }
            else if (queued[p] > 0)
            {
                mmu->Release(p, 3, frame);
                ref.Release(p, frame);
                queued[p] -= frame;
            }
            headroomPackets += mmu->GetHeadroomBytes(p, 3) > 0 ? 1 : 0;
            NS_TEST_ASSERT_MSG_EQ(mmu->GetHeadroomBytes(p, 3), ref.q[p].hdrm, "step " << step);
            NS_TEST_ASSERT_MSG_EQ(mmu->GetThreshold(), ref.Threshold(), "T at step " << step);
            if (!paused[p])
            {
                NS_TEST_ASSERT_MSG_EQ(mmu->ShouldPause(p, 3), ref.Pause(p), "PAUSE, " << step);
                paused[p] = ref.Pause(p);
                pauses += paused[p] ? 1 : 0;
                inFlight[p] = paused[p] ? 20 : 0;
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ(mmu->ShouldResume(p, 3),
                                      ref.Resume(p),
                                      "RESUME at step " << step);
                paused[p] = !ref.Resume(p);
                resumes += paused[p] ? 0 : 1;
            }
        }
        // the sequence exercised what it checks
        NS_TEST_EXPECT_MSG_GT(pauses, 50u, "pauses");
        NS_TEST_EXPECT_MSG_GT(resumes, 50u, "resumes");
        NS_TEST_EXPECT_MSG_GT(headroomPackets, 100u, "steps with headroom in use");
    }

    std::string m_layout; //!< Layout value
};

/**
 * \ingroup training-net-tests
 * ns3-datacenter's ingress pool is the unsigned buffer - headrooms (its fairness example,
 * SetIngressPool): on a leaf of 8 hosts at 100 Gb/s and 2 uplinks at 400 Gb/s (1 us) the
 * headrooms of 8 priorities, 8 x (8 x 37500 + 2 x 150000) = 4800000 bytes, exceed a 4 MiB
 * buffer and the pool wraps to 2^64 - 605696 bytes: a dynamic threshold of about 2.3e18
 * that 10 MB into one class never reaches, so the member never pauses there. With 9 ports at
 * 100 Gb/s the pool is 4194304 - 2700000 bytes and the same burst pauses at alpha x that less
 * the class's own bytes, as the member does.
 */
class RoceMmuNs3dcWrapTestCase : public TestCase
{
  public:
    RoceMmuNs3dcWrapTestCase()
        : TestCase("RoceSwitchMmu Layout ns3-datacenter: headrooms above the buffer wrap its pool")
    {
    }

  private:
    /// \param fast ports at 400 Gb/s \param slow ports at 100 Gb/s (before them) \param paused
    /// set to the class's bytes at its first PAUSE (0: none) \return the empty buffer's T
    static uint64_t Burst(uint32_t fast, uint32_t slow, uint64_t* paused)
    {
        Ptr<RoceSwitchMmu> mmu = CreateObject<RoceSwitchMmu>();
        mmu->SetAttribute("Layout", StringValue("ns3-datacenter"));
        mmu->SetAttribute("BufferSize", UintegerValue(BUFFER));
        mmu->SetAttribute("Mtu", UintegerValue(1000));
        mmu->SetAttribute("Alpha", DoubleValue(0.125));
        for (uint32_t p = 0; p < slow + fast; ++p)
        {
            mmu->AddPort(DataRate(p < slow ? RATE : 4 * RATE), MicroSeconds(1), 1 << 3);
        }
        const uint64_t empty = mmu->GetThreshold();
        *paused = 0;
        const uint32_t frame = 1048;
        for (uint64_t in = 0; in < 10000000 && *paused == 0; in += frame)
        {
            const char* reason = nullptr;
            if (!mmu->Admit(0, 3, frame, &reason))
            {
                break;
            }
            if (mmu->ShouldPause(0, 3))
            {
                *paused = in + frame;
            }
        }
        return empty;
    }

    void DoRun() override
    {
        uint64_t paused = 0;
        const uint64_t wrapped = Burst(2, 8, &paused);
        const double pool = 18446744073709551616.0 - (8.0 * (8 * 37500 + 2 * 150000) - BUFFER);
        NS_TEST_EXPECT_MSG_EQ_TOL(double(wrapped), 0.125 * pool, 1e-6 * 0.125 * pool, "wrapped");
        NS_TEST_EXPECT_MSG_EQ(paused, 0u, "10 MB into one class: no PAUSE");
        const uint64_t flat = Burst(0, 9, &paused);
        const uint64_t free = BUFFER - 9 * 8 * FAMILY_HEADROOM;
        NS_TEST_EXPECT_MSG_EQ(flat, static_cast<uint64_t>(0.125 * double(free)), "alpha x pool");
        // it pauses once the class's bytes pass alpha x (pool - its bytes): x = free / 9
        NS_TEST_EXPECT_MSG_GT(paused, 0u, "the unwrapped pool pauses");
        NS_TEST_EXPECT_MSG_EQ_TOL(double(paused), double(free) / 9, 1048.0 * 2, "at free / 9");
    }
};

/**
 * \ingroup training-net-tests
 * A member that is not one: RoceHpccFlows::Run refuses it with one message naming --family and
 * the members, before anything runs.
 */
class RoceHpccUnknownFamilyTestCase : public TnDataTestCase
{
  public:
    RoceHpccUnknownFamilyTestCase()
        : TnDataTestCase("roce-hpcc-flows --family: an unknown member or framing is refused")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = DataFile("hpcc-peers/hpcc/incast-1000");
        RoceHpccConfig cfg;
        std::string error;
        NS_TEST_ASSERT_MSG_EQ(
            RoceHpccConfigReader::Read(dir + "/config.txt", dir, false, &cfg, &error),
            true,
            error);
        cfg.family = "ns3-datacentre";
        cfg.fctFile = CreateTempDirFilename("unknown-fct.txt");
        RoceHpccResult res;
        NS_TEST_EXPECT_MSG_EQ(RoceHpccFlows::Run(cfg, &res, &error), false, "refused");
        NS_TEST_EXPECT_MSG_EQ(error,
                              "--family: 'ns3-datacentre' is not hpcc or ns3-datacenter",
                              "one line naming the option");
        NS_TEST_EXPECT_MSG_EQ(res.finished, 0u, "nothing ran");
        cfg.family = "hpcc";
        cfg.framing = "ppp";
        NS_TEST_EXPECT_MSG_EQ(RoceHpccFlows::Run(cfg, &res, &error), false, "refused");
        NS_TEST_EXPECT_MSG_EQ(error,
                              "--ns3::RoceNetDevice::Framing: 'ppp' is not ethernet or hpcc-family",
                              "one line naming the attribute");
        NS_TEST_EXPECT_MSG_EQ(res.finished, 0u, "nothing ran");
    }
};

/// One member's run of a case: its folder under test/data/hpcc-peers.
struct PeerFigures
{
    double end;    //!< last flow's end (start + FCT), ns
    double median; //!< median slowdown (FCT / the file's ideal)
    double p99;    //!< 99th-percentile slowdown (nearest rank)
};

/// \param f figures \param k 0: end, 1: median, 2: p99 \return that figure
double
Figure(const PeerFigures& f, int k)
{
    return k == 0 ? f.end : k == 1 ? f.median : f.p99;
}

/// \param path an fct.txt \param out its figures \return false if unreadable or empty
bool
ReadFigures(const std::string& path, PeerFigures* out)
{
    std::ifstream in(path);
    std::string line;
    std::vector<double> slowdowns;
    double end = 0;
    while (std::getline(in, line))
    {
        std::istringstream is(line);
        std::string sip;
        std::string dip;
        uint64_t sport = 0;
        uint64_t dport = 0;
        uint64_t size = 0;
        uint64_t start = 0;
        uint64_t fct = 0;
        uint64_t ideal = 0;
        if (!(is >> sip >> dip >> sport >> dport >> size >> start >> fct >> ideal) || ideal == 0)
        {
            return false;
        }
        end = std::max(end, double(start + fct));
        slowdowns.push_back(double(fct) / double(ideal));
    }
    if (slowdowns.empty())
    {
        return false;
    }
    std::sort(slowdowns.begin(), slowdowns.end());
    const size_t n = slowdowns.size();
    out->end = end;
    out->median = n % 2 ? slowdowns[n / 2] : (slowdowns[n / 2 - 1] + slowdowns[n / 2]) / 2;
    out->p99 = slowdowns[static_cast<size_t>(std::ceil(0.99 * double(n))) - 1];
    return true;
}

/// \param v values \return their median
double
Median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/**
 * \ingroup training-net-tests
 * Issue 45's case 1 (test/data/hpcc-peers/cc-comparison/case1: 8 hosts on a 4:1 leaf-spine,
 * 56 flows of 524288 bytes) under HPCC with --family=hpcc, once with the family's frame bytes
 * (RoceNetDevice::Framing hpcc-family, what --family sets) and once with Ethernet's. Each leaf
 * uplink carries 16 flows' data and the ACKs of the 16 flows the other way, 525 packets each:
 * on Ethernet payload + 82 + 42 (INT) bytes a packet and 86 + 42 an ACK, under the family's
 * framing payload + 36 + 42 and 34 + 42 (PPP, IPv4, UDP, its sequence header; no preamble or
 * gap). Both runs keep the model's NIC scheduler (RdmaNic::Scheduler ring), so that only the
 * bytes differ: each run's bottleneck utilisation must be its framing's bytes over its end
 * (within 0.5 %) and the Ethernet run's end the family-framed run's times the ratio of the bytes
 * (within 1 %). A third run, --family as it is (the family's scheduler too), must end within
 * 1.5 % of the member (measured +1.1 %; the scheduler's own test is -cc3's case 2).
 */
class RoceHpccFramesTestCase : public TnDataTestCase
{
  public:
    RoceHpccFramesTestCase()
        : TnDataTestCase("issue 45's case 1 under HPCC: Ethernet's end over the family's framing's "
                         "is the frames' ratio")
    {
    }

  private:
    /// \param ethernet Framing ethernet instead of --family's \param fig figures
    /// \param util bottleneck utilisation \param error why the run failed
    /// \return false if the run failed
    bool RunCase1(bool ethernet, bool ring, PeerFigures* fig, double* util, std::string* error)
    {
        const std::string dir = DataFile("hpcc-peers/cc-comparison/case1");
        RoceHpccConfig cfg;
        if (!RoceHpccConfigReader::Read(dir + "/config-cc3.txt", dir, false, &cfg, error))
        {
            return false;
        }
        cfg.family = "hpcc";
        cfg.familyEcmp = true;
        cfg.seed = 1;
        cfg.fctFile = CreateTempDirFilename("frames-fct.txt");
        cfg.pfcFile = "";
        if (ethernet)
        {
            cfg.framing = "ethernet";
        }
        if (ring)
        {
            // a NIC attribute of the config wins over what --family sets
            cfg.settings.push_back({"ns3::RdmaNic", "Scheduler", "ring", "", 0});
        }
        RoceHpccResult res;
        if (!RoceHpccFlows::Run(cfg, &res, error))
        {
            return false;
        }
        *util = res.bottleneckUtilisation;
        *error = "our fct.txt";
        return ReadFigures(cfg.fctFile, fig);
    }

    void DoRun() override
    {
        const std::string dir = DataFile("hpcc-peers/cc-comparison/case1");
        PeerFigures theirs;
        NS_TEST_ASSERT_MSG_EQ(ReadFigures(dir + "/fct-hpcc-cc3.txt", &theirs), true, dir);
        PeerFigures eth;
        PeerFigures fam;
        double ethUtil = 0;
        double famUtil = 0;
        std::string error;
        PeerFigures family;
        double familyUtil = 0;
        NS_TEST_ASSERT_MSG_EQ(RunCase1(true, true, &eth, &ethUtil, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(RunCase1(false, true, &fam, &famUtil, &error), true, error);
        NS_TEST_ASSERT_MSG_EQ(RunCase1(false, false, &family, &familyUtil, &error), true, error);
        const double packets = 525; // 524288 bytes in 1000-byte payloads
        const double intBytes = 2 + 5 * RoceIntHeader::HOP_SIZE;
        const double ourData = RoceSwitchMmu::PACKET_OVERHEAD - RoceRethHeader::SIZE + intBytes;
        const double ourAck = ourData + RoceAethHeader::SIZE;
        const double ethBytes = 16 * (524288 + packets * (ourData + ourAck) + RoceRethHeader::SIZE);
        const double famBytes = 16 * (524288 + packets * ((36 + intBytes) + (34 + intBytes)));
        const double ethFrames = ethBytes * 8 / 100e9 / (eth.end * 1e-9);
        const double famFrames = famBytes * 8 / 100e9 / (fam.end * 1e-9);
        std::cout << GetName() << ": Ethernet utilisation " << ethUtil << ", frames " << ethFrames
                  << "; the family's framing " << famUtil << ", frames " << famFrames << "; end "
                  << eth.end << " against " << fam.end << " x " << ethBytes / famBytes
                  << "; member " << theirs.end << ", ours with --family " << family.end << "\n";
        NS_TEST_EXPECT_MSG_EQ_TOL(ethUtil, ethFrames, 0.005 * ethFrames, "Ethernet's frames");
        NS_TEST_EXPECT_MSG_EQ_TOL(famUtil, famFrames, 0.005 * famFrames, "the family's frames");
        const double expected = fam.end * ethBytes / famBytes;
        NS_TEST_EXPECT_MSG_EQ_TOL(eth.end, expected, 0.01 * expected, "x the frames' ratio");
        NS_TEST_EXPECT_MSG_EQ_TOL(family.end, theirs.end, 0.015 * theirs.end, "the member's end");
    }
};

/**
 * \ingroup training-net-tests
 * One of issue 43's cases (DCQCN, the family's keys) run by roce-hpcc-flows --config
 * --family=MEMBER over the member's 8 seeds, against the member's stored outputs: for the last
 * flow's end and the median and 99th-percentile slowdown, the median over our seeds must lie
 * within the member's spread over its seeds, or within `tolerance` of the member's median.
 */
class RoceHpccPeerCaseTestCase : public TnDataTestCase
{
  public:
    /**
     * \param member folder and --family value \param name case folder
     * \param seeds seeds the member ran (1 .. seeds)
     * \param tolerance relative error allowed outside the member's spread
     */
    RoceHpccPeerCaseTestCase(const std::string& member,
                             const std::string& name,
                             uint32_t seeds,
                             double tolerance)
        : TnDataTestCase(name + " against " + member),
          m_member(member),
          m_case(name),
          m_seeds(seeds),
          m_tolerance(tolerance)
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = DataFile("hpcc-peers/" + m_member + "/" + m_case);
        std::vector<PeerFigures> theirs;
        std::vector<PeerFigures> ours;
        for (uint32_t seed = 1; seed <= m_seeds; ++seed)
        {
            PeerFigures f;
            NS_TEST_ASSERT_MSG_EQ(
                ReadFigures(dir + "/fct-seed" + std::to_string(seed) + ".txt", &f),
                true,
                dir << ": the member's output of seed " << seed);
            theirs.push_back(f);
            RoceHpccConfig cfg;
            std::string error;
            NS_TEST_ASSERT_MSG_EQ(
                RoceHpccConfigReader::Read(dir + "/config.txt", dir, false, &cfg, &error),
                true,
                error);
            cfg.family = m_member;
            cfg.familyEcmp = true;
            cfg.seed = seed;
            cfg.fctFile = CreateTempDirFilename("peer-fct.txt");
            cfg.pfcFile = "";
            RoceHpccResult res;
            NS_TEST_ASSERT_MSG_EQ(RoceHpccFlows::Run(cfg, &res, &error), true, error);
            NS_TEST_ASSERT_MSG_EQ(ReadFigures(cfg.fctFile, &f), true, "our fct.txt");
            ours.push_back(f);
        }
        const char* names[3] = {"last flow's end", "median slowdown", "p99 slowdown"};
        for (int k = 0; k < 3; ++k)
        {
            std::vector<double> t;
            std::vector<double> o;
            for (uint32_t i = 0; i < m_seeds; ++i)
            {
                t.push_back(Figure(theirs[i], k));
                o.push_back(Figure(ours[i], k));
            }
            const double med = Median(t);
            const double our = Median(o);
            const double lo = *std::min_element(t.begin(), t.end());
            const double hi = *std::max_element(t.begin(), t.end());
            const double err = our / med - 1;
            std::cout << GetName() << ": " << names[k] << " ours " << our << ", member " << med
                      << " (" << lo << " .. " << hi << "), " << err * 100 << " %\n";
            const bool inSpread = our >= lo && our <= hi;
            NS_TEST_EXPECT_MSG_EQ(inSpread || std::abs(err) <= m_tolerance,
                                  true,
                                  m_case << " " << names[k] << ": ours " << our << " against "
                                         << m_member << "'s " << med << " (" << lo << " .. " << hi
                                         << ")");
        }
    }

    std::string m_member; //!< member folder and --family
    std::string m_case;   //!< case folder
    uint32_t m_seeds;     //!< seeds 1 .. m_seeds
    double m_tolerance;   //!< allowed relative error outside the spread
};

/// A figure of a cc-comparison run that is outside 5 % of the member today: held to the error
/// measured today plus one to two points until its difference is found, and named with its
/// reason.
struct KnownGap
{
    int figure;         //!< 0: last flow's end, 1: median slowdown, 2: p99 slowdown
    double bound;       //!< relative error allowed today
    std::string reason; //!< why, as far as known (doc/roce-hpcc-migration.rst)
};

/// One control's run of one of issue 45's cc-comparison set-ups against one member.
struct CcRun
{
    std::string set;            //!< folder under hpcc-peers/cc-comparison: case1, case2, case3
    std::string cc;             //!< config-ccCC.txt, fct-MEMBER-ccCC.txt: 1, 3, 7, 7w0, 8, 10
    std::string member;         //!< hpcc or ns3-datacenter (folder name and --family)
    std::vector<KnownGap> gaps; //!< figures outside 5 % today
};

/**
 * \ingroup training-net-tests
 * One of issue 45's cc-comparison set-ups (test/data/hpcc-peers/cc-comparison/caseN: the
 * collective's transfers as flows, all at 0) under one control, run by roce-hpcc-flows
 * --config --family=MEMBER against the member's stored output of seed 1: the last flow's end
 * and the median and 99th-percentile slowdown within 5 % of the member's, but for the known
 * gaps, each held to its own bound with its reason printed (not skipped: a gap that widens
 * fails, one that closes says so).
 */
class RoceHpccCcComparisonTestCase : public TnDataTestCase
{
  public:
    /// \param run the set-up, control, member and known gaps
    explicit RoceHpccCcComparisonTestCase(const CcRun& run)
        : TnDataTestCase("cc-comparison " + run.set + " cc" + run.cc + " against " + run.member),
          m_run(run)
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = DataFile("hpcc-peers/cc-comparison/" + m_run.set);
        PeerFigures theirs;
        NS_TEST_ASSERT_MSG_EQ(
            ReadFigures(dir + "/fct-" + m_run.member + "-cc" + m_run.cc + ".txt", &theirs),
            true,
            dir << ": the member's output");
        RoceHpccConfig cfg;
        std::string error;
        NS_TEST_ASSERT_MSG_EQ(RoceHpccConfigReader::Read(dir + "/config-cc" + m_run.cc + ".txt",
                                                         dir,
                                                         false,
                                                         &cfg,
                                                         &error),
                              true,
                              error);
        cfg.family = m_run.member;
        cfg.familyEcmp = true;
        cfg.seed = 1;
        cfg.fctFile = CreateTempDirFilename("cc-comparison-fct.txt");
        cfg.pfcFile = "";
        RoceHpccResult res;
        NS_TEST_ASSERT_MSG_EQ(RoceHpccFlows::Run(cfg, &res, &error), true, error);
        PeerFigures ours;
        NS_TEST_ASSERT_MSG_EQ(ReadFigures(cfg.fctFile, &ours), true, "our fct.txt");
        const char* names[3] = {"last flow's end", "median slowdown", "p99 slowdown"};
        for (int k = 0; k < 3; ++k)
        {
            const double t = Figure(theirs, k);
            const double o = Figure(ours, k);
            const double err = o / t - 1;
            double bound = 0.05;
            std::string note;
            for (const KnownGap& g : m_run.gaps)
            {
                if (g.figure == k)
                {
                    bound = g.bound;
                    note = std::abs(err) <= 0.05
                               ? ", a known gap now within 5 %: hold it to 5 % (" + g.reason + ")"
                               : ", a known gap (" + g.reason + ")";
                }
            }
            std::cout << GetName() << ": " << names[k] << " ours " << o << ", member " << t << ", "
                      << err * 100 << " %" << note << "\n";
            NS_TEST_EXPECT_MSG_LT_OR_EQ(std::abs(err),
                                        bound,
                                        m_run.set << " cc" << m_run.cc << " " << names[k]
                                                  << ": ours " << o << " against " << m_run.member
                                                  << "'s " << t);
        }
    }

    CcRun m_run; //!< the set-up, control, member and known gaps
};

/**
 * \ingroup training-net-tests
 * The buffer layouts against the members' rules.
 */
class RoceHpccPeersTestSuite : public TestSuite
{
  public:
    RoceHpccPeersTestSuite()
        : TestSuite("training-net-roce-hpcc-peers", UNIT)
    {
        AddTestCase(new RoceMmuLayoutTestCase<HpccRef>("hpcc", "alibaba-edu's SwitchMmu"),
                    TestCase::QUICK);
        AddTestCase(new RoceMmuLayoutTestCase<Ns3dcRef>("ns3-datacenter", "inet-tub's SwitchMmu"),
                    TestCase::QUICK);
        AddTestCase(new RoceHpccUnknownFamilyTestCase, TestCase::QUICK);
        AddTestCase(new RoceMmuNs3dcWrapTestCase, TestCase::QUICK);
        AddTestCase(new RoceHpccFramesTestCase, TestCase::QUICK);
    }
};

/// The suite of the buffer layouts.
RoceHpccPeersTestSuite g_roceHpccPeersTestSuite;

/**
 * \ingroup training-net-tests
 * One case (or one congestion control's cases) against the members' stored outputs, each its
 * own ctest. The 5 % goal of issue 43 holds for both members on the four DCQCN cases, and so
 * does issue 45's for its windowed controls on both files (hpcc's leaf-spine runs aside: hpcc
 * starts a flow in its own past there); see
 * doc/roce-hpcc-migration.rst, "The family's own simulators". Each control's suite also holds
 * issue 45's cc-comparison set-ups (RoceHpccCcComparisonTestCase) under that control, with
 * their known gaps.
 */
class RoceHpccPeerCaseSuite : public TestSuite
{
  public:
    /// (member, case folder under its folder)
    using Run = std::pair<std::string, std::string>;

    /**
     * \param name suite name (the instances' names end in TestSuite, so that the build's scan
     * for `TestSuite("training-net-...")` makes each a ctest)
     * \param runs (member: folder under test/data/hpcc-peers and --family value, case folder)
     * \param seeds seeds the member ran
     * \param ccRuns issue 45's cc-comparison set-ups under this suite's control
     */
    RoceHpccPeerCaseSuite(const std::string& name,
                          const std::vector<Run>& runs,
                          uint32_t seeds,
                          const std::vector<CcRun>& ccRuns = {})
        : TestSuite(name, SYSTEM)
    {
        for (const Run& r : runs)
        {
            AddTestCase(new RoceHpccPeerCaseTestCase(r.first, r.second, seeds, 0.05),
                        TestCase::QUICK);
        }
        // case 2's 992 flows take 3-6 s a run (measured under a load of 6 on 2 cores), the
        // others under a second: QUICK, so that an ns-3 tree's test.py runs them too
        for (const CcRun& r : ccRuns)
        {
            AddTestCase(new RoceHpccCcComparisonTestCase(r), TestCase::QUICK);
        }
    }
};

/// Issue 43's DCQCN cases, 8 seeds each, against both members.
RoceHpccPeerCaseSuite g_peersIncast1000TestSuite("training-net-roce-hpcc-peers-incast-1000",
                                                 {{"hpcc", "incast-1000"},
                                                  {"ns3-datacenter", "incast-1000"}},
                                                 8);
RoceHpccPeerCaseSuite g_peersIncast4000TestSuite("training-net-roce-hpcc-peers-incast-4000",
                                                 {{"hpcc", "incast-4000"},
                                                  {"ns3-datacenter", "incast-4000"}},
                                                 8);
RoceHpccPeerCaseSuite g_peersLeafSpine1000TestSuite("training-net-roce-hpcc-peers-leafspine-1000",
                                                    {{"hpcc", "leafspine-1000"},
                                                     {"ns3-datacenter", "leafspine-1000"}},
                                                    8);
RoceHpccPeerCaseSuite g_peersLeafSpine4000TestSuite("training-net-roce-hpcc-peers-leafspine-4000",
                                                    {{"hpcc", "leafspine-4000"},
                                                     {"ns3-datacenter", "leafspine-4000"}},
                                                    8);
/// Reasons of the known gaps of issue 45's cc-comparison set-ups (doc/roce-hpcc-migration.rst,
/// "Issue 45's cc-comparison set-ups on the family").
const std::string NOT_FOUND = "not explained yet (issue 45, item 2)";

/// Issue 45's cc-comparison set-ups under DCQCN (HAS_WIN 0), seed 1.
const std::vector<RoceHpccPeerCaseSuite::Run> DCQCN_FILES = {};
const std::vector<CcRun> DCQCN_SETUPS = {
    // the NIC scan (RdmaNic::Scheduler family) took the median against hpcc from +5.1 % to -0.3 %
    {"case1", "1", "hpcc", {}},
    {"case1", "1", "ns3-datacenter", {{1, 0.19, NOT_FOUND + ": end and p99 within 1.1 %"}}},
    {"case3", "1", "hpcc", {}},
    {"case3", "1", "ns3-datacenter", {}},
    {"case2", "1", "hpcc", {}}};
RoceHpccPeerCaseSuite g_peersDcqcnTestSuite("training-net-roce-hpcc-peers-cc1",
                                            DCQCN_FILES,
                                            1,
                                            DCQCN_SETUPS);

/// Issue 45's controls with the family's window (HAS_WIN 1), seed 1; hpcc's leaf-spine runs are
/// left out (its small flows start in its own past there: under HPCC it ends 6.5 % later than
/// ours with the family's frame bytes, where ns3-datacenter, which starts them later, is
/// within 3.5 %).
const std::vector<RoceHpccPeerCaseSuite::Run> HPCC_FILES = {
    {"hpcc", "cc3-incast-1000"},
    {"ns3-datacenter", "cc3-incast-1000"},
    {"ns3-datacenter", "cc3-leafspine-1000"}};
const std::vector<CcRun> HPCC_SETUPS = {
    {"case1", "3", "hpcc", {}},
    {"case1", "3", "ns3-datacenter", {}},
    {"case3", "3", "hpcc", {}},
    {"case3", "3", "ns3-datacenter", {}},
    // closed by the family's NIC scan (RdmaNic::IdleWakeup family, which --family sets): with
    // our ready ring it ended 7.1 % early (p99 -5.2 %)
    {"case2", "3", "hpcc", {}},
    {"case2", "3", "ns3-datacenter", {}}};
RoceHpccPeerCaseSuite g_peersHpccTestSuite("training-net-roce-hpcc-peers-cc3",
                                           HPCC_FILES,
                                           1,
                                           HPCC_SETUPS);

const std::vector<RoceHpccPeerCaseSuite::Run> TIMELY_FILES = {
    {"hpcc", "cc7-incast-1000"},
    {"ns3-datacenter", "cc7-incast-1000"},
    {"ns3-datacenter", "cc7-leafspine-1000"}};
const std::vector<CcRun> TIMELY_SETUPS = {{"case1", "7", "hpcc", {}},
                                          {"case1", "7", "ns3-datacenter", {}},
                                          {"case1", "7w0", "hpcc", {}},
                                          {"case1", "7w0", "ns3-datacenter", {}},
                                          {"case3", "7", "hpcc", {}},
                                          {"case3", "7", "ns3-datacenter", {}},
                                          {"case2", "7", "hpcc", {}}};
RoceHpccPeerCaseSuite g_peersTimelyTestSuite("training-net-roce-hpcc-peers-cc7",
                                             TIMELY_FILES,
                                             1,
                                             TIMELY_SETUPS);

const std::vector<RoceHpccPeerCaseSuite::Run> DCTCP_FILES = {
    {"hpcc", "cc8-incast-1000"},
    {"ns3-datacenter", "cc8-incast-1000"},
    {"ns3-datacenter", "cc8-leafspine-1000"}};
const std::vector<CcRun> DCTCP_SETUPS = {{"case1", "8", "hpcc", {}},
                                         {"case1", "8", "ns3-datacenter", {}},
                                         {"case3", "8", "hpcc", {}},
                                         {"case3", "8", "ns3-datacenter", {}},
                                         {"case2", "8", "hpcc", {}}};
RoceHpccPeerCaseSuite g_peersDctcpTestSuite("training-net-roce-hpcc-peers-cc8",
                                            DCTCP_FILES,
                                            1,
                                            DCTCP_SETUPS);

const std::vector<RoceHpccPeerCaseSuite::Run> PINT_FILES = {
    {"hpcc", "cc10-incast-1000"},
    {"ns3-datacenter", "cc10-incast-1000"},
    {"ns3-datacenter", "cc10-leafspine-1000"}};
const std::vector<CcRun> PINT_SETUPS = {{"case1", "10", "hpcc", {}},
                                        {"case1", "10", "ns3-datacenter", {}},
                                        {"case3", "10", "hpcc", {}},
                                        {"case3", "10", "ns3-datacenter", {}},
                                        {"case2", "10", "hpcc", {}}};
RoceHpccPeerCaseSuite g_peersPintTestSuite("training-net-roce-hpcc-peers-cc10",
                                           PINT_FILES,
                                           1,
                                           PINT_SETUPS);

} // namespace
