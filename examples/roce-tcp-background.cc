/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A training all-reduce on the RoCE fabric beside ordinary TCP traffic (storage or inference
 * traffic of the same cluster): RoceHelper::InstallInternetStack puts ns-3's internet stack on
 * the NPUs, and every NPU i sends over TCP to NPU i + N/2 at `load` times its link rate (what
 * an OnOffApplication over TCP into a PacketSink does; written out here with sockets, as the
 * module does not depend on ns-3's applications module), on priority 0 (DSCP 0, lossy) while
 * the all-reduce runs on the lossless priority 3. For each load it prints the collective's time,
 * its slowdown against load 0 and the TCP goodput while the collective ran; with --db each load is
 * a run of the results database (drops, ports, PFC and flows of the collective recorded as usual).
 *
 *   roce-tcp-background --topology=switch:8,rate=100Gbps,latency=1us --algorithm=ring \
 *                       --bytes=16MiB --loads=0,0.25,0.5,0.75 --db=background.db
 */
#include "ns3/collective-helper.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/program-options.h"
#include "ns3/roce-helper.h"
#include "ns3/stats-helper.h"
#include "ns3/tn-algorithm.h"
#include "ns3/tn-db.h"
#include "ns3/tn-signal.h"
#include "ns3/tn-topology.h"
#include "ns3/tn-tune.h"

#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/** What one load gave. */
struct Point
{
    double collectiveUs{-1}; //!< all-reduce time, -1 if incomplete
    double tcpGbps{0};       //!< TCP goodput summed over the flows while the all-reduce ran
    std::string check;       //!< Collective::Check()
    int signal{0};           //!< the signal that stopped the recorded run (0: none)
    int64_t runId{-1};       //!< the run recorded (-1: none)
    std::string recorded;    //!< its status as recorded
};

/**
 * TCP at a constant offered rate: `size` bytes handed to the socket every size * 8 / rate
 * seconds (as OnOffApplication does with a constant on time), and a sink counting what
 * arrives.
 */
class PacedTcpFlow : public SimpleRefCount<PacedTcpFlow>
{
  public:
    /**
     * \param from sender \param to receiver \param toAddress its address \param port TCP port
     * \param rateBps offered rate \param size bytes per write
     */
    PacedTcpFlow(Ptr<Node> from,
                 Ptr<Node> to,
                 Ipv4Address toAddress,
                 uint16_t port,
                 uint64_t rateBps,
                 uint32_t size)
        : m_size(size),
          m_gap(Seconds(size * 8.0 / rateBps))
    {
        m_listener = Socket::CreateSocket(to, TcpSocketFactory::GetTypeId());
        m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
        m_listener->Listen();
        m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                      MakeCallback(&PacedTcpFlow::Accepted, this));
        m_sender = Socket::CreateSocket(from, TcpSocketFactory::GetTypeId());
        m_sender->Bind();
        m_sender->Connect(InetSocketAddress(toAddress, port));
        m_sender->SetConnectCallback(MakeCallback(&PacedTcpFlow::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
    }

    /** \return bytes received so far */
    uint64_t GetReceived() const
    {
        return m_received;
    }

  private:
    void Connected(Ptr<Socket> s)
    {
        Write();
    }

    void Write()
    {
        // what the socket cannot take now is not offered again (OnOff drops it too)
        if (m_sender->GetTxAvailable() >= m_size)
        {
            m_sender->Send(Create<Packet>(m_size));
        }
        Simulator::Schedule(m_gap, &PacedTcpFlow::Write, this);
    }

    void Accepted(Ptr<Socket> s, const Address& from)
    {
        s->SetRecvCallback(MakeCallback(&PacedTcpFlow::Read, this));
        m_accepted = s;
    }

    void Read(Ptr<Socket> s)
    {
        while (Ptr<Packet> p = s->Recv())
        {
            m_received += p->GetSize();
        }
    }

    uint32_t m_size;
    Time m_gap;
    uint64_t m_received{0};
    Ptr<Socket> m_listener;
    Ptr<Socket> m_sender;
    Ptr<Socket> m_accepted;
};

/** Ends the simulation when the collective is done. */
void
StopWhenDone(Ptr<const Collective> c)
{
    Simulator::Stop();
}

/** One run: the all-reduce with TCP background flows at `load` of the link rate. */
Point
RunLoad(const tn_topology* topo,
        const std::string& algorithm,
        uint64_t bytes,
        double load,
        const std::string& dbPath,
        std::string* error)
{
    Point point;
    RoceHelper roce;
    RoceFabricNodes fabric = roce.Install(topo);
    Ipv4InterfaceContainer ip = roce.InstallInternetStack();
    CollectiveHelper collectives;
    collectives.Install(topo, roce);
    StatsHelper stats;
    if (!dbPath.empty())
    {
        std::ostringstream params;
        params << "{\"example\":\"roce-tcp-background\",\"load\":" << load << ",\"bytes\":" << bytes
               << ",\"algorithm\":\"" << algorithm << "\"}";
        if (!stats.Install(dbPath, "roce-tcp-background", params.str(), topo, roce, error))
        {
            Simulator::Destroy();
            return point;
        }
    }
    const uint32_t n = fabric.npus.GetN();
    const uint64_t linkBps =
        tn_topology_link(topo,
                         tn_topology_out_links(topo, tn_topology_npu_node(topo, 0), nullptr)[0])
            ->rate_bps;
    std::vector<Ptr<PacedTcpFlow>> flows;
    if (load > 0)
    {
        for (uint32_t i = 0; i < n; i++)
        {
            const uint32_t peer = (i + n / 2) % n;
            flows.push_back(Create<PacedTcpFlow>(fabric.npus.Get(i),
                                                 fabric.npus.Get(peer),
                                                 ip.GetAddress(peer),
                                                 9000 + i,
                                                 static_cast<uint64_t>(load * linkBps),
                                                 4096));
        }
    }
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = TN_COLL_ALL_REDUCE;
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;
    Ptr<Collective> c = collectives.Create(request, {}, error);
    if (!c)
    {
        if (!dbPath.empty())
        {
            stats.Finish("error", 0, *error); // no run is left 'running'
        }
        Simulator::Destroy();
        return point;
    }
    c->TraceConnectWithoutContext("End", MakeCallback(&StopWhenDone));
    collectives.Start(c);
    Simulator::Run();
    if (c->IsComplete())
    {
        point.collectiveUs = c->GetDuration().GetNanoSeconds() / 1e3;
        uint64_t received = 0;
        for (const Ptr<PacedTcpFlow>& flow : flows)
        {
            received += flow->GetReceived();
        }
        point.tcpGbps = received * 8.0 / (point.collectiveUs * 1e3);
    }
    point.check = c->Check();
    if (!dbPath.empty())
    {
        point.recorded =
            stats.Finish(c->IsComplete() ? "ok" : "error", Simulator::Now().GetNanoSeconds());
        point.runId = stats.GetRecorder()->GetRunId();
        if (point.recorded == "aborted")
        {
            point.signal = stats.GetRecorder()->GetSignal();
        }
    }
    Simulator::Destroy();
    return point;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string spec = "switch:8,rate=100Gbps,latency=1us";
    std::string algorithm = "ring";
    std::vector<std::string> loads{"0", "0.25", "0.5", "0.75"};
    std::string dbPath;
    uint64_t bytes = 16 << 20;
    ProgramOptions options("roce-tcp-background", __FILE__);
    options.AddString("topology", "topology spec (tn_topology)", &spec);
    options.AddString("algorithm", "all-reduce algorithm", &algorithm);
    options.AddBytes("bytes", "all-reduce size", &bytes);
    options.AddList("loads",
                    "TCP background loads: offered rate per NPU as a fraction of its link rate",
                    &loads);
    options.AddString("db", "results database to record each load into (none if empty)", &dbPath);
    if (!options.Parse(argc, argv))
    {
        return 2;
    }
    if (!dbPath.empty())
    {
        // from here to the exit: a signal aborts the run it comes before, or ends the program
        // after the last run is recorded, never kills it midway (with no database nothing
        // polls the flag: a signal kills the program, as it must to stop it)
        options.WatchSignals();
    }
    std::vector<double> levels;
    for (const std::string& item : loads)
    {
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (*end != '\0' || !(v >= 0 && v <= 1))
        {
            std::cerr << "roce-tcp-background: --loads: '" << item << "' is not a load in [0, 1]"
                      << std::endl;
            return 2;
        }
        levels.push_back(v);
    }
    if (levels.empty())
    {
        std::cerr << "roce-tcp-background: --loads: no load given" << std::endl;
        return 2;
    }
    tn_topology* topo = nullptr;
    tn_error err;
    if (tn_topology_from_spec(spec.c_str(), &topo, &err) != TN_OK)
    {
        std::cerr << "roce-tcp-background: --topology: " << err.message << std::endl;
        return 2;
    }
    // the plan, the fabric and the database are checked before the table's header: bad input
    // is one error line with nothing after it, and no run is recorded for it
    tn_plan_request request;
    tn_plan_request_init(&request);
    request.collective = TN_COLL_ALL_REDUCE;
    request.algorithm = algorithm.c_str();
    request.bytes = bytes;
    std::string why;
    if (tn_tune_plan_check(topo, &request, &err) != TN_OK)
    {
        why = std::string("--algorithm: ") + err.message;
    }
    else
    {
        why = RoceHelper().Check(topo);
    }
    tn_db* db = nullptr;
    if (why.empty() && !dbPath.empty())
    {
        if (tn_db_open(dbPath.c_str(), &db, &err) != TN_OK)
        {
            why = std::string("--db: ") + err.message;
        }
        tn_db_close(db);
    }
    if (!why.empty())
    {
        std::cerr << "roce-tcp-background: " << why << std::endl;
        tn_topology_destroy(topo);
        return 2;
    }
    // TCP segments as large as the RDMA packets: round robin then shares links by bytes
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(4096));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 20));

    std::cout << "load  all-reduce_us  slowdown  tcp_goodput_Gbps" << std::endl;
    double baseUs = 0;
    int status = 0;
    for (double load : levels)
    {
        std::string error;
        Point p = RunLoad(topo, algorithm, bytes, load, dbPath, &error);
        if (p.runId >= 0)
        {
            options.Recorded(p.runId, p.recorded);
        }
        if (!error.empty())
        {
            std::cerr << "roce-tcp-background: " << error << std::endl;
            status = 1;
            break;
        }
        if (p.signal)
        {
            std::cout.flush();
            std::cerr << "roce-tcp-background: interrupted; run recorded as aborted" << std::endl;
            status = tn_signal_exit_status(p.signal);
            break;
        }
        if (p.collectiveUs < 0 || !p.check.empty())
        {
            std::cerr << "roce-tcp-background: load " << load
                      << ": the all-reduce did not complete as planned " << p.check << std::endl;
            status = 1;
            break;
        }
        if (baseUs == 0)
        {
            baseUs = p.collectiveUs;
        }
        std::cout << std::fixed << std::setprecision(2) << std::setw(4) << load << "  "
                  << std::setw(13) << p.collectiveUs << "  " << std::setw(8)
                  << p.collectiveUs / baseUs << "  " << std::setw(16) << p.tcpGbps << std::endl;
    }
    tn_topology_destroy(topo);
    return options.ExitStatus(status);
}
